// What features add to a tool call's last update before the client hears it ended: a command's
// card gets the diffs of what the command changed (src/editor-files/command-changes). The update
// waits for them, and so does every update after it (the outbox keeps the order), but never for
// long: past ENDING_WAIT_MS the card ends without them.
import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { Item, SessionUpdate } from "../../bridge/index.js";

/** How long a tool call's end waits for what features add to it. */
export const ENDING_WAIT_MS = 5000;

export type ToolCallEnding = (item: Item) => Promise<ToolCallContent[]> | undefined;

/** What the listeners add to `item`'s end, or undefined (nothing to wait for: the common case). */
export function endingContent(
  item: Item,
  listeners: ReadonlySet<ToolCallEnding>,
  onError: (err: unknown) => void,
): Promise<ToolCallContent[]> | undefined {
  const parts: Array<Promise<ToolCallContent[]>> = [];
  for (const listener of listeners) {
    try {
      const part = listener(item);
      if (part) parts.push(part.catch((err: unknown) => (onError(err), [])));
    } catch (err) {
      onError(err);
    }
  }
  if (parts.length === 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ToolCallContent[][]>((resolve) => (timer = setTimeout(() => resolve([]), ENDING_WAIT_MS)));
  return Promise.race([Promise.all(parts), late]).then((all) => {
    clearTimeout(timer);
    return all.flat();
  });
}

/**
 * `updates` with the last update of `ended` (an item that completed) made once what the listeners
 * add to it is known: its content is what it had (else what the card showed: a terminal), then theirs.
 */
export function withEnding(
  updates: SessionUpdate[],
  ended: Item | undefined,
  listeners: ReadonlySet<ToolCallEnding>,
  shown: ToolCallContent[] | undefined,
  onError: (err: unknown) => void,
): Array<SessionUpdate | Promise<SessionUpdate>> {
  const extra = ended && listeners.size > 0 ? endingContent(ended, listeners, onError) : undefined;
  if (!ended || !extra) return updates;
  return updates.map((u) =>
    u.sessionUpdate === "tool_call_update" &&
    u.toolCallId === ended.id &&
    (u.status === "completed" || u.status === "failed")
      ? extra.then((more) => (more.length === 0 ? u : { ...u, content: [...(u.content ?? shown ?? []), ...more] }))
      : u,
  );
}
