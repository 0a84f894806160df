// Turns the app-server notifications of one thread into ACP session updates.
// Stateful per session: it remembers which items were announced and how much of
// each message was streamed, so nothing is shown twice and nothing is dropped.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { completedItemUpdate, describeItem, isToolItem, type Item } from "./items.js";

type Params = Record<string, unknown>;

export class ThreadEventTranslator {
  private readonly announced = new Set<string>();
  private readonly streamed = new Map<string, number>();

  /** Forgets per-turn state (call when a new turn starts). */
  reset(): void {
    this.announced.clear();
    this.streamed.clear();
  }

  translate(method: string, params: Params): SessionUpdate[] {
    switch (method) {
      case "item/agentMessage/delta":
        return this.textDelta(params, "agent_message_chunk");
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
        return this.textDelta(params, "agent_thought_chunk");
      case "item/started":
        return this.itemStarted(params.item as Item);
      case "item/completed":
        return this.itemCompleted(params.item as Item);
      case "thread/tokenUsage/updated":
        return this.usage(params);
      case "turn/plan/updated":
        return this.plan(params);
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

  private itemStarted(item: Item | undefined): SessionUpdate[] {
    if (!item || !isToolItem(item) || this.announced.has(item.id)) return [];
    this.announced.add(item.id);
    const view = describeItem(item);
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
    if (!isToolItem(item)) return [];
    const updates: SessionUpdate[] = this.announced.has(item.id) ? [] : this.itemStarted(item);
    updates.push(completedItemUpdate(item));
    return updates;
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
    return [
      {
        sessionUpdate: "plan",
        entries: steps.map((s) => ({
          content: s.step,
          priority: "medium",
          status: s.status === "completed" ? "completed" : s.status === "inProgress" ? "in_progress" : "pending",
        })),
      },
    ];
  }
}
