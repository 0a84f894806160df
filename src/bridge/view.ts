// Types the bridge's mappings share: the Codex item (typed from Codex's generated schema), how
// a tool call looks to the client, and the one port through which the bridge sees files.
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk/unstable";
import type { SessionUpdate as AcpSessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { v2 } from "../codex/index.js";

export type Item = v2.ThreadItem;

/**
 * A `session/update` the bridge emits: ACP's schema including its unstable updates
 * (`plan_update`); the unstable ones are only sent to clients that declared them.
 */
export type SessionUpdate = AcpSessionUpdate;
export type ItemOf<T extends Item["type"]> = Extract<Item, { type: T }>;

export type ToolCallView = {
  title: string;
  kind: ToolKind;
  locations?: ToolCallLocation[];
  rawInput?: unknown;
  content?: ToolCallContent[];
  /** The tool's programmatic name (ACP's unstable `ToolCall.name`). */
  name?: string;
  /** Extension data of the tool call (Zed's terminal_info for terminal cards). */
  _meta?: Record<string, unknown>;
};

/** Text as tool-call content. */
export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/**
 * How the bridge reads a file's current text (for full before/after diffs of Codex's own
 * patches). Injected, so the mapping stays pure: history replay and tests pass none.
 */
export type TextFiles = { read(path: string): string | undefined };

/** Per-file texts of a fileChange before it applied (undefined: not known). */
export type FileBefore = Map<string, string | null | undefined>;
