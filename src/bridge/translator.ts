// Turns the app-server notifications of one thread into ACP session updates.
// Stateful per session: it remembers which items were announced and how much of
// each message was streamed, so nothing is shown twice and nothing is dropped.
import type { PlanEntry, SessionUpdate } from "@agentclientprotocol/sdk";
import {
  completedItemUpdate,
  describeItem,
  isToolItem,
  outputTail,
  OUTPUT_TAIL_CHARS,
  snapshotFileChange,
  type FileBefore,
  type Item,
  type ToolCallView,
} from "./items.js";
import { describePatchCall } from "./file-tools.js";

type Params = Record<string, unknown>;

/** Streamed command output is re-sent at most this often (the final update always has it all). */
const OUTPUT_UPDATE_INTERVAL_MS = 100;

type OutputState = { tail: string; total: number; lastSent: number; dirty: boolean };

export class ThreadEventTranslator {
  private readonly announced = new Set<string>();
  private readonly streamed = new Map<string, number>();
  private readonly views = new Map<string, ToolCallView>();
  private readonly before = new Map<string, FileBefore>();
  private readonly outputs = new Map<string, OutputState>();
  /** Native apply_patch calls seen in the model's raw output (call id -> patch), until their output. */
  private readonly nativePatches = new Map<string, string>();

  constructor(
    private readonly now: () => number = Date.now,
    /** The session's working directory (relative paths of a patch are resolved against it). */
    private readonly cwd: () => string | undefined = () => undefined,
  ) {}

  /** Forgets per-turn state (call when a new turn starts). */
  reset(): void {
    this.announced.clear();
    this.streamed.clear();
    this.views.clear();
    this.before.clear();
    this.outputs.clear();
    this.nativePatches.clear();
  }

  /** How an announced tool item looked (for permission requests on it). */
  viewOf(itemId: string): ToolCallView | undefined {
    return this.views.get(itemId);
  }

  translate(method: string, params: Params): SessionUpdate[] {
    switch (method) {
      case "item/agentMessage/delta":
        return this.textDelta(params, "agent_message_chunk");
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
        return this.textDelta(params, "agent_thought_chunk");
      case "item/reasoning/summaryPartAdded":
        return this.thoughtBreak(params);
      case "item/commandExecution/outputDelta":
        return this.outputDelta(params);
      case "item/started":
        return this.itemStarted(params.item as Item);
      case "item/completed":
        return this.itemCompleted(params.item as Item);
      case "thread/tokenUsage/updated":
        return this.usage(params);
      case "turn/plan/updated":
        return this.plan(params);
      case "rawResponseItem/completed":
        return this.rawItem(params.item);
      case "warning":
        return typeof params.message === "string" ? [notice(`Warning: ${params.message}`)] : [];
      case "error":
        return this.error(params);
      case "deprecationNotice":
        return typeof params.summary === "string" ? [notice(`Deprecated: ${params.summary}${typeof params.details === "string" ? ` ${params.details}` : ""}`)] : [];
      case "model/rerouted": {
        const to = params.toModel ?? params.model;
        return typeof to === "string" ? [notice(`Codex switched this turn to the model ${to}.`)] : [];
      }
      default:
        return [];
    }
  }

  private textDelta(params: Params, kind: "agent_message_chunk" | "agent_thought_chunk"): SessionUpdate[] {
    const delta = params.delta;
    if (typeof delta !== "string" || delta.length === 0) return [];
    const itemId = String(params.itemId);
    this.streamed.set(itemId, (this.streamed.get(itemId) ?? 0) + delta.length);
    return [{ sessionUpdate: kind, content: { type: "text", text: delta } }];
  }

  /** A new reasoning summary part: separate it from the previous one. */
  private thoughtBreak(params: Params): SessionUpdate[] {
    const itemId = String(params.itemId);
    if (!this.streamed.get(itemId)) return [];
    return this.textDelta({ itemId, delta: "\n\n" }, "agent_thought_chunk");
  }

  private outputDelta(params: Params): SessionUpdate[] {
    const delta = params.delta;
    const itemId = params.itemId;
    if (typeof delta !== "string" || typeof itemId !== "string" || !this.announced.has(itemId)) return [];
    const state = this.outputs.get(itemId) ?? { tail: "", total: 0, lastSent: 0, dirty: false };
    this.outputs.set(itemId, state);
    state.total += delta.length;
    state.tail = (state.tail + delta).slice(-OUTPUT_TAIL_CHARS);
    state.dirty = true;
    const now = this.now();
    if (state.lastSent !== 0 && now - state.lastSent < OUTPUT_UPDATE_INTERVAL_MS) return [];
    state.lastSent = now;
    state.dirty = false;
    const cut = state.total - state.tail.length;
    const shown = cut > 0 ? `[… ${cut} earlier characters not shown]\n${state.tail}` : state.tail;
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: itemId,
        status: "in_progress",
        content: [{ type: "content", content: { type: "text", text: shown } }],
      },
    ];
  }

  private itemStarted(item: Item | undefined): SessionUpdate[] {
    if (!item || !isToolItem(item) || this.announced.has(item.id)) return [];
    this.announced.add(item.id);
    if (item.type === "fileChange") this.before.set(item.id, snapshotFileChange(item));
    const cwd = this.cwd();
    const view = describeItem(item, this.before.get(item.id), cwd === undefined ? {} : { cwd });
    this.views.set(item.id, view);
    return [{ sessionUpdate: "tool_call", toolCallId: item.id, status: "in_progress", ...view }];
  }

  private itemCompleted(item: Item | undefined): SessionUpdate[] {
    if (!item) return [];
    if (item.type === "agentMessage") return this.unstreamedText(item.id, String(item.text ?? ""), "agent_message_chunk");
    if (item.type === "reasoning") {
      const summary = Array.isArray(item.summary) ? item.summary.join("\n\n") : "";
      const content = Array.isArray(item.content) ? item.content.join("\n\n") : "";
      return this.unstreamedText(item.id, summary || content, "agent_thought_chunk");
    }
    if (item.type === "exitedReviewMode" && typeof item.review === "string" && item.review) {
      return this.unstreamedText(item.id, item.review, "agent_message_chunk");
    }
    if (item.type === "contextCompaction") return [notice("Context compacted.")];
    if (!isToolItem(item)) return [];
    const updates: SessionUpdate[] = this.announced.has(item.id) ? [] : this.itemStarted(item);
    updates.push(completedItemUpdate(item, this.before.get(item.id)));
    this.outputs.delete(item.id);
    this.before.delete(item.id);
    return updates;
  }

  /**
   * Codex's native apply_patch, when Codex rejects the patch (its context does not match), runs
   * no item at all: the model sees the error and the user would see nothing. The raw response
   * items show the call and its output; a call that never became an item is shown as failed.
   */
  private rawItem(raw: unknown): SessionUpdate[] {
    if (!raw || typeof raw !== "object") return [];
    const item = raw as { type?: unknown; name?: unknown; namespace?: unknown; call_id?: unknown; input?: unknown; arguments?: unknown; output?: unknown };
    if (typeof item.call_id !== "string") return [];
    // (Not our MCP apply_patch: that one has a namespace, and an item of its own.)
    if ((item.type === "custom_tool_call" || item.type === "function_call") && item.name === "apply_patch" && !item.namespace) {
      const input = typeof item.input === "string" ? item.input : patchFromArguments(item.arguments);
      if (input !== undefined) this.nativePatches.set(item.call_id, input);
      return [];
    }
    if (item.type !== "custom_tool_call_output" && item.type !== "function_call_output") return [];
    const input = this.nativePatches.get(item.call_id);
    if (input === undefined) return [];
    this.nativePatches.delete(item.call_id);
    if (this.announced.has(item.call_id)) return [];
    this.announced.add(item.call_id);
    const output = typeof item.output === "string" ? item.output : JSON.stringify(item.output ?? "");
    const cwd = this.cwd();
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: item.call_id,
        status: "failed",
        ...describePatchCall(input, cwd),
        content: [{ type: "content", content: { type: "text", text: output } }],
        rawOutput: { output },
      },
    ];
  }

  /** A message that completed without (all of) its deltas: show what the client has not seen. */
  private unstreamedText(itemId: string, text: string, kind: "agent_message_chunk" | "agent_thought_chunk"): SessionUpdate[] {
    const seen = this.streamed.get(itemId) ?? 0;
    if (text.length <= seen) return [];
    this.streamed.set(itemId, text.length);
    return [{ sessionUpdate: kind, content: { type: "text", text: text.slice(seen) } }];
  }

  private usage(params: Params): SessionUpdate[] {
    const usage = params.tokenUsage as { last?: { totalTokens?: number }; modelContextWindow?: number | null } | undefined;
    const used = usage?.last?.totalTokens;
    const size = usage?.modelContextWindow;
    if (typeof used !== "number" || typeof size !== "number") return [];
    return [{ sessionUpdate: "usage_update", used, size }];
  }

  private plan(params: Params): SessionUpdate[] {
    const steps = (params.plan as Array<{ step: string; status: string }> | undefined) ?? [];
    const entries: PlanEntry[] = steps.map((s) => ({
      content: s.step,
      priority: "medium",
      status: s.status === "completed" ? "completed" : s.status === "inProgress" || s.status === "in_progress" ? "in_progress" : "pending",
    }));
    return [{ sessionUpdate: "plan", entries }];
  }

  /** A retried error is worth a line in the chat; a final one fails the prompt instead. */
  private error(params: Params): SessionUpdate[] {
    if (params.willRetry !== true) return [];
    const message = (params.error as { message?: string } | undefined)?.message;
    return message ? [notice(`${message} (retrying…)`)] : [];
  }
}

function patchFromArguments(args: unknown): string | undefined {
  if (typeof args !== "string") return undefined;
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    return typeof parsed.input === "string" ? parsed.input : undefined;
  } catch {
    return undefined;
  }
}

/** Visible agent text for a warning or notice, on its own line. */
function notice(text: string): SessionUpdate {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n> ${text}\n\n` } };
}

export { outputTail };
