// What the client said it can show beyond ACP's baseline, and the updates that depend on it:
// notices (`session.notices`), compactions (`session.compaction`) and plan documents (the
// unstable `plan` capability). A client without one of them gets the same information another
// way (a notice as a card, a plan as agent text), so nothing the user should see depends on a
// capability. The same live and in history.
import type { SessionUpdate } from "./view.js";
import type { Item } from "./view.js";
import type { v2 } from "../codex/index.js";

/** The client's display capabilities, read from its `initialize` request. */
export type ClientDisplay = {
  /** Zed's terminal cards (`_meta.terminal_output`): commands become terminals. */
  terminalOutput?: boolean;
  /** The official adapter's chunks (`_meta.terminal_output_delta`): every command's output streams as appends. */
  terminalOutputDelta?: boolean;
  /** ACP `notice` updates (`clientCapabilities.session.notices`). */
  notices?: boolean;
  /** ACP `compaction_update` (`clientCapabilities.session.compaction`). */
  compaction?: boolean;
  /** ACP's unstable `plan_update` (`clientCapabilities.plan`): Codex's proposed plans as documents. */
  planUpdates?: boolean;
};

export type NoticeSeverity = "info" | "warning" | "error";

/**
 * A notice for the user: an ACP `notice` when the client shows them, else a finished card of its
 * own (a tool call of kind `other`, id `id`), never agent text: a client's history, a quiet
 * output or an SDK's `result.text` would take it for part of the model's answer.
 */
export function noticeUpdate(
  display: ClientDisplay,
  severity: NoticeSeverity,
  text: string,
  more: string | null | undefined,
  id: string,
): SessionUpdate {
  // A notice's title stands alone on one line; what follows a line break is its description.
  const [title = "", ...rest] = text.split("\n");
  const description = [rest.join("\n"), more ?? ""].filter((part) => part.trim() !== "").join("\n");
  if (display.notices) return { sessionUpdate: "notice", severity, title, ...(description ? { description } : {}) };
  return {
    sessionUpdate: "tool_call",
    toolCallId: id,
    title: severity === "info" ? title : `${severity === "warning" ? "Warning" : "Error"}: ${title}`,
    kind: "other",
    status: "completed",
    content: description ? [{ type: "content", content: { type: "text", text: description } }] : [],
  };
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
    // Without notices, a card named by the item's id (the same live and in history).
    return [noticeUpdate(display, "info", "Context compacted.", undefined, `notice-${item.id}`)];
  }
  return undefined;
}

/** A goal's state as the Codex CLI names it. */
export function goalStatusLabel(status: v2.ThreadGoalStatus): string {
  switch (status) {
    case "active":
      return "active";
    case "paused":
      return "paused";
    case "blocked":
      return "blocked";
    case "usageLimited":
      return "stopped at the usage limit";
    case "budgetLimited":
      return "stopped at its token budget";
    case "complete":
      return "complete";
  }
}
