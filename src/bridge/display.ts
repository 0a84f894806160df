// What the client said it can show beyond ACP's baseline, and the updates that depend on it:
// notices (`session.notices`), compactions (`session.compaction`) and plan documents (the
// unstable `plan` capability). A client without one of them gets the same information as agent
// text, so nothing the user should see depends on a capability. The same live and in history.
import type { SessionUpdate } from "./view.js";
import type { Item } from "./view.js";

/** The client's display capabilities, read from its `initialize` request. */
export type ClientDisplay = {
  /** Zed's terminal cards (`_meta.terminal_output`): commands become terminals. */
  terminalOutput?: boolean;
  /** ACP `notice` updates (`clientCapabilities.session.notices`). */
  notices?: boolean;
  /** ACP `compaction_update` (`clientCapabilities.session.compaction`). */
  compaction?: boolean;
  /** ACP's unstable `plan_update` (`clientCapabilities.plan`): Codex's proposed plans as documents. */
  planUpdates?: boolean;
};

export type NoticeSeverity = "info" | "warning" | "error";

/** A notice for the user: an ACP `notice` when the client shows them, else a line of agent text. */
export function noticeUpdate(display: ClientDisplay, severity: NoticeSeverity, text: string, more?: string | null): SessionUpdate {
  // A notice's title stands alone on one line; what follows a line break is its description.
  const [title = "", ...rest] = text.split("\n");
  const description = [rest.join("\n"), more ?? ""].filter((part) => part.trim() !== "").join("\n");
  if (display.notices) return { sessionUpdate: "notice", severity, title, ...(description ? { description } : {}) };
  const lines = [title, ...(description ? description.split("\n") : [])];
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n${lines.map((line) => `> ${line}`).join("\n")}\n\n` } };
}

/** Codex's proposed plan (plan mode) as the unstable `plan_update` markdown document, one per plan item. */
export function planDocument(planId: string, markdown: string): SessionUpdate {
  return { sessionUpdate: "plan_update", plan: { type: "markdown", planId, content: markdown } };
}

/**
 * A plan or compaction item that completed, as this client can show it; undefined for every
 * other item (and for a plan when the client has no plan documents: it is agent text then).
 */
export function completedItemDisplay(item: Item, display: ClientDisplay): SessionUpdate[] | undefined {
  if (item.type === "plan" && display.planUpdates) return item.text ? [planDocument(item.id, item.text)] : [];
  if (item.type === "contextCompaction") {
    if (display.compaction) return [{ sessionUpdate: "compaction_update", compactionId: item.id, status: "completed" }];
    const shown = noticeUpdate(display, "info", "Context compacted.");
    // As text it is a message of its own, with the item's id (the same live and in history).
    return [shown.sessionUpdate === "agent_message_chunk" ? { ...shown, messageId: item.id } : shown];
  }
  return undefined;
}
