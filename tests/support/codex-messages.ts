// Codex messages for unit tests, written as partial objects (only the fields a test is about)
// and typed as Codex's generated schema says the real ones are.
import type { Item, ItemOf, ToolItem } from "../../src/bridge/index.js";
import type { CodexNotification } from "../../src/codex/index.js";

/** A notification as the codex client hands it to a thread's listeners. */
export function note(method: string, params: Record<string, unknown>): CodexNotification {
  return { method, params } as unknown as CodexNotification;
}

export function codexItem(fields: { type: string; id: string } & Record<string, unknown>): Item {
  return fields as unknown as Item;
}

export function toolItem(fields: { type: string; id: string } & Record<string, unknown>): ToolItem {
  return fields as unknown as ToolItem;
}

export function mcpItem(fields: Record<string, unknown>): ItemOf<"mcpToolCall"> {
  return {
    type: "mcpToolCall",
    id: "call_1",
    server: "acp_fs",
    tool: "read_text_file",
    status: "inProgress",
    arguments: {},
    result: null,
    error: null,
    ...fields,
  } as unknown as ItemOf<"mcpToolCall">;
}

/** A Codex turn without its items, as turn/started and turn/completed carry it (`ended`: with its end time). */
export function codexTurn(id: string, status: string, ended = false) {
  return {
    id,
    status,
    items: [],
    itemsView: "notLoaded",
    error: null,
    startedAt: 0,
    completedAt: ended ? 1 : null,
    durationMs: ended ? 1 : null,
  };
}
