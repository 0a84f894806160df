// The items of a session's subagents that started and have not ended (subagents are routed to the
// session: their approvals are asked there, and need the item). The subagents feature reports
// starts and ends; another feature that showed one of these items to the client (an approval
// prompt makes it a tool call there) asks to hear its end, without reaching into the other's state.
import type { Item } from "../../bridge/index.js";

export type ChildItem = { readonly item: Item; readonly subagent: string; readonly threadId: string };
export type ChildItemEnd = "completed" | "failed";

export class ChildItems {
  private readonly running = new Map<string, ChildItem & { onEnd?: (status: ChildItemEnd) => void }>();

  get(itemId: string): ChildItem | undefined {
    return this.running.get(itemId);
  }

  get size(): number {
    return this.running.size;
  }

  started(item: Item, subagent: string, threadId: string): void {
    this.running.set(item.id, { item, subagent, threadId });
  }

  /** Runs `listener` when the item ends (the latest listener of an item wins). */
  onEnd(itemId: string, listener: (status: ChildItemEnd) => void): void {
    const child = this.running.get(itemId);
    if (child) child.onEnd = listener;
  }

  ended(itemId: string, status: ChildItemEnd): void {
    const child = this.running.get(itemId);
    this.running.delete(itemId);
    child?.onEnd?.(status);
  }

  /** A subagent's turn ended: what it had started and not completed never will (an interrupted one). */
  endThread(threadId: string): void {
    for (const [id, child] of this.running) if (child.threadId === threadId) this.ended(id, "failed");
  }

  /** Forgets every item, telling no one (the session closed, or its codex died). */
  clear(): void {
    this.running.clear();
  }
}
