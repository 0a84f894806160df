// The SSE events the Responses API streams for one scripted response: response.created, each
// output item's added/delta/done events, then response.completed or response.failed. Its own
// file because it is the fake model's wire format, a pure function of the script, apart from the
// HTTP server (./server.ts) that queues scripts, records requests and streams these frames.
//
// Observed with codex 0.169.0: response.reasoning_summary_part.added +
// response.reasoning_summary_text.delta become item/reasoning/summaryPartAdded +
// item/reasoning/summaryTextDelta; response.failed -> "stream disconnected before completion: <message>".
import { splitDeltas, type ScriptedItem, type ScriptedResponse, type ScriptedUsage } from "./script.js";

const DEFAULT_USAGE: ScriptedUsage = { input_tokens: 100, output_tokens: 10, total_tokens: 110 };

export type SseEvent = Record<string, unknown> & { type: string };

/** The SSE events (in order) for one scripted response. Exported for tests and the replay tool. */
export function responseEvents(
  scripted: ScriptedResponse,
  ids: { responseId: string; itemPrefix: string },
): { events: SseEvent[]; terminal: SseEvent | undefined } {
  const events: SseEvent[] = [];
  const responseId = ids.responseId;
  events.push({
    type: "response.created",
    response: { id: responseId, object: "response", status: "in_progress", output: [] },
  });
  // What the ChatGPT backend adds to a stream (Codex 0.171 relays its moderation metadata as
  // turn/moderationMetadata).
  if (scripted.metadata !== undefined) events.push({ type: "response.metadata", metadata: scripted.metadata });
  const doneItems: unknown[] = [];
  (scripted.items ?? []).forEach((item, outputIndex) => {
    const itemEvents = itemToEvents(item, outputIndex, `${ids.itemPrefix}_${outputIndex}`);
    events.push(...itemEvents.events);
    doneItems.push(itemEvents.done);
  });
  let terminal: SseEvent | undefined;
  if (scripted.hang || scripted.closeEarly) {
    terminal = undefined;
  } else if (scripted.errorMessage !== undefined) {
    terminal = {
      type: "response.failed",
      response: {
        id: responseId,
        object: "response",
        status: "failed",
        error: { code: "server_error", message: scripted.errorMessage },
      },
    };
  } else {
    terminal = {
      type: "response.completed",
      response: {
        id: responseId,
        object: "response",
        status: "completed",
        output: doneItems,
        usage: { ...(scripted.usage ?? DEFAULT_USAGE) },
      },
    };
  }
  return { events, terminal };
}

function itemToEvents(
  item: ScriptedItem,
  outputIndex: number,
  defaultId: string,
): { events: SseEvent[]; done: unknown } {
  const events: SseEvent[] = [];
  switch (item.type) {
    case "message": {
      const id = item.id ?? `msg_${defaultId}`;
      events.push({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { type: "message", id, role: "assistant", status: "in_progress", content: [] },
      });
      events.push({
        type: "response.content_part.added",
        item_id: id,
        output_index: outputIndex,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
      for (const delta of splitDeltas(item.text, item.deltas)) {
        events.push({
          type: "response.output_text.delta",
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          delta,
        });
      }
      events.push({
        type: "response.output_text.done",
        item_id: id,
        output_index: outputIndex,
        content_index: 0,
        text: item.text,
      });
      const done = {
        type: "message",
        id,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: item.text, annotations: [] }],
      };
      events.push({ type: "response.output_item.done", output_index: outputIndex, item: done });
      return { events, done };
    }
    case "reasoning": {
      const id = item.id ?? `rs_${defaultId}`;
      events.push({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { type: "reasoning", id, summary: [] },
      });
      events.push({
        type: "response.reasoning_summary_part.added",
        item_id: id,
        output_index: outputIndex,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
      for (const delta of splitDeltas(item.summary, item.deltas)) {
        events.push({
          type: "response.reasoning_summary_text.delta",
          item_id: id,
          output_index: outputIndex,
          summary_index: 0,
          delta,
        });
      }
      events.push({
        type: "response.reasoning_summary_text.done",
        item_id: id,
        output_index: outputIndex,
        summary_index: 0,
        text: item.summary,
      });
      events.push({
        type: "response.reasoning_summary_part.done",
        item_id: id,
        output_index: outputIndex,
        summary_index: 0,
        part: { type: "summary_text", text: item.summary },
      });
      const done = { type: "reasoning", id, summary: [{ type: "summary_text", text: item.summary }] };
      events.push({ type: "response.output_item.done", output_index: outputIndex, item: done });
      return { events, done };
    }
    case "function_call": {
      const callId = item.callId ?? `call_${defaultId}`;
      const args = typeof item.arguments === "string" ? item.arguments : JSON.stringify(item.arguments ?? {});
      const done: Record<string, unknown> = {
        type: "function_call",
        id: `fc_${defaultId}`,
        call_id: callId,
        name: item.name,
        arguments: args,
        status: "completed",
      };
      if (item.namespace !== undefined) done.namespace = item.namespace;
      events.push({ type: "response.output_item.done", output_index: outputIndex, item: done });
      return { events, done };
    }
    case "custom_tool_call": {
      const callId = item.callId ?? `call_${defaultId}`;
      const done = {
        type: "custom_tool_call",
        id: `ctc_${defaultId}`,
        call_id: callId,
        name: item.name,
        input: item.input,
        status: "completed",
      };
      events.push({ type: "response.output_item.done", output_index: outputIndex, item: done });
      return { events, done };
    }
  }
}

/** One event as a Server-Sent Events frame. */
export function sseFrame(event: SseEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
