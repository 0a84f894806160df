// Replays a Codex thread's stored history (items, as `thread/items/list` returns them, or turns
// with full items, as `thread/turns/list` and `thread/read` do) as the ACP session updates a
// client would have seen live: the user's messages as user_message_chunk, the agent's text and
// thoughts, and one `tool_call` per tool item carrying its final status and output. Pure: no I/O.
//
// What Codex 0.169 does not keep in its item history cannot be replayed: `update_plan`
// calls (live `plan` updates) and streamed text of a turn that was killed before the
// item completed. Text items render exactly as live (src/bridge/item-text.ts).
import type { ContentBlock, ToolCallStatus } from "@agentclientprotocol/sdk/unstable";
import type { SessionUpdate } from "./view.js";
import { z } from "zod";
import { asToolItem, completedItemUpdate, describeItem, type Item, type ToolItem } from "./items.js";
import { itemText, moderatedMessage } from "./item-text.js";
import { completedItemDisplay, type ClientDisplay } from "./display.js";
import type { ItemOf } from "./view.js";

/** One stored item: only the fields every item has are required; the rest is read defensively. */
const historyItemSchema = z.looseObject({ type: z.string(), id: z.string() });

/** One stored turn, items loaded (`itemsView: "full"`). */
const historyTurnSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  items: z.array(z.unknown()).default([]),
  itemsView: z.string().optional(),
  error: z.looseObject({ message: z.string() }).nullish(),
});

const textInputSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
const imageInputSchema = z.looseObject({ type: z.literal("image"), url: z.string() });
const localImageInputSchema = z.looseObject({ type: z.literal("localImage"), path: z.string() });
const namedPathInputSchema = z.looseObject({ type: z.enum(["mention", "skill"]), name: z.string(), path: z.string() });

export type ReplayOptions = {
  /** The session's working directory (the relative paths of a patch are resolved against it). */
  cwd?: string;
  /** Called for an item or input the replay cannot read (logged by the caller). */
  onSkip?: (reason: string, detail: unknown) => void;
  /** What the client can show: terminal cards (the newest turn's commands replay as terminals), notices, compactions, plan documents. */
  display?: ClientDisplay;
};

/**
 * One stored item, its turn, whether that turn had ended (an item still in progress in an ended
 * turn never finished), and whether that turn is the thread's newest. Only the newest turn's
 * commands replay as terminal cards: an editor gives each terminal card an emulator of its own
 * (Zed: a grid of up to 10,000 rows), and a stored session of thousands of commands restored as
 * terminals is gigabytes in the editor. Older ones show as text, their output capped the same way.
 */
export type HistoryEntry = { item: unknown; turnId: string; turnEnded: boolean; newestTurn: boolean };

/** The updates that show `turns` (oldest first, the last one the thread's newest) to a client, in order. */
export function replayTurns(turns: readonly unknown[], opts: ReplayOptions = {}): SessionUpdate[] {
  return replayEntries(turnEntries(turns, opts), opts);
}

/**
 * The items of `turns` (as `thread/turns/list` or `thread/read` return them), in order.
 * `endsThread`: the last of `turns` is the thread's newest (false for a page with more after it).
 */
export function turnEntries(turns: readonly unknown[], opts: ReplayOptions = {}, endsThread = true): HistoryEntry[] {
  const entries: HistoryEntry[] = [];
  for (const [index, raw] of turns.entries()) {
    const turn = historyTurnSchema.safeParse(raw);
    if (!turn.success) {
      opts.onSkip?.("turn with an unexpected shape", turn.error.issues[0]);
      continue;
    }
    const turnEnded = turn.data.status !== "inProgress";
    const newestTurn = endsThread && index === turns.length - 1;
    for (const item of turn.data.items) entries.push({ item, turnId: turn.data.id, turnEnded, newestTurn });
  }
  return entries;
}

/** The updates that show stored items (oldest first) to a client, in order. */
export function replayEntries(entries: readonly HistoryEntry[], opts: ReplayOptions = {}): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const entry of entries) {
    const item = historyItemSchema.safeParse(entry.item);
    if (!item.success) {
      opts.onSkip?.("item with an unexpected shape", item.error.issues[0]);
      continue;
    }
    // Checked above for the fields every item has; the rest is typed by Codex's schema.
    updates.push(...replayItem(item.data as Item, entry, opts));
  }
  return updates;
}

/** The updates of one stored item (`entry.item`, checked). */
function replayItem(item: Item, entry: HistoryEntry, opts: ReplayOptions = {}): SessionUpdate[] {
  switch (item.type) {
    case "userMessage":
      return userMessage(item, opts).map((content) => ({
        sessionUpdate: "user_message_chunk",
        content,
        messageId: item.id,
      }));
    default: {
      // The same as live: plans and compactions as the client can show them (display.ts), then
      // messages, plans, thoughts, reviews as text (item-text.ts).
      const shown = completedItemDisplay(item, opts.display ?? {});
      if (shown) return shown;
      // A hidden or blocked answer (Codex 0.171's display modes) as live: item-text.ts.
      const moderated = item.type === "agentMessage" ? moderatedMessage(item, opts.display ?? {}, 0) : undefined;
      if (moderated) return moderated;
      const text = itemText(item);
      if (text) return textUpdate(text.kind, text.text, item.id);
      const tool = asToolItem(item, onUnknown(opts));
      return tool ? toolCall(tool, entry, opts) : [];
    }
  }
}

/**
 * A tool item as one `tool_call` with its final state: what it was, how it ended, what it
 * printed. A terminal card needs its output and exit after it exists: one update more.
 */
function toolCall(item: ToolItem, { turnEnded, newestTurn }: HistoryEntry, opts: ReplayOptions): SessionUpdate[] {
  // No file access: today's files say nothing about then.
  const terminalOutput = opts.display?.terminalOutput === true && newestTurn;
  const ctx = {
    ...onUnknown(opts),
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(terminalOutput ? { terminalOutput } : {}),
  };
  const view = describeItem(item, undefined, ctx);
  // The same rendering as live, without file access: a patch shows its hunks (full diffs for added files).
  const done = completedItemUpdate(item, undefined, ctx);
  let status: ToolCallStatus = done.status ?? "completed";
  // Codex stopped (killed or interrupted) before the item finished: it never will.
  if (turnEnded && (status === "in_progress" || status === "pending")) status = "failed";
  const content = done.content ?? view.content;
  const locations = done.locations ?? view.locations;
  const call: SessionUpdate = {
    sessionUpdate: "tool_call",
    toolCallId: item.id,
    title: done.title ?? view.title,
    kind: done.kind ?? view.kind,
    status,
    ...(locations ? { locations } : {}),
    ...(view.rawInput !== undefined ? { rawInput: view.rawInput } : {}),
    ...(content && content.length ? { content } : {}),
    ...(done.rawOutput !== undefined ? { rawOutput: done.rawOutput } : {}),
    ...(view.name ? { name: view.name } : {}),
    ...(view._meta ? { _meta: view._meta } : {}),
  };
  return done._meta ? [call, { sessionUpdate: "tool_call_update", toolCallId: item.id, _meta: done._meta }] : [call];
}

function textUpdate(
  kind: "agent_message_chunk" | "agent_thought_chunk",
  text: string | undefined,
  messageId: string,
): SessionUpdate[] {
  if (!text) return [];
  return [{ sessionUpdate: kind, content: { type: "text", text }, messageId }];
}

/** A stored user message back as the content blocks the client sent (as far as Codex kept them). */
function userMessage(item: ItemOf<"userMessage">, opts: ReplayOptions): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  const content: unknown[] = Array.isArray(item.content) ? item.content : [];
  for (const input of content) {
    const text = textInputSchema.safeParse(input);
    if (text.success) {
      blocks.push(contextBlock(text.data.text) ?? { type: "text", text: text.data.text });
      continue;
    }
    const image = imageInputSchema.safeParse(input);
    if (image.success) {
      blocks.push(imageBlock(image.data.url));
      continue;
    }
    const local = localImageInputSchema.safeParse(input);
    if (local.success) {
      blocks.push({ type: "resource_link", uri: fileUri(local.data.path), name: basename(local.data.path) });
      continue;
    }
    const named = namedPathInputSchema.safeParse(input);
    if (named.success) {
      blocks.push({ type: "resource_link", uri: fileUri(named.data.path), name: named.data.name });
      continue;
    }
    opts.onSkip?.("user input of an unknown kind", (input as { type?: unknown } | null)?.type);
  }
  return blocks;
}

// An embedded resource is sent to Codex as `<context ref="URI">\nTEXT\n</context>` (see src/core/prompt.ts).
const CONTEXT_RE = /^<context ref="([^"]*)">\n([\s\S]*)\n<\/context>$/;

function contextBlock(text: string): ContentBlock | undefined {
  const m = CONTEXT_RE.exec(text);
  if (!m) return undefined;
  return { type: "resource", resource: { uri: m[1]!, text: m[2]! } };
}

function imageBlock(url: string): ContentBlock {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (m) return { type: "image", mimeType: m[1]!, data: m[2]! };
  return { type: "resource_link", uri: url, name: basename(url) };
}

/**
 * A stored absolute path as a file URI, by its shape (a session stored on Windows holds Windows
 * paths): POSIX `/a/b`, a drive `C:\a` (either separator), a share `\\server\share\a`, and their
 * long-path forms `\\?\C:\a`, `\\?\UNC\server\share\a`. Anything else is passed on as it is.
 */
function fileUri(p: string): string {
  if (p.startsWith("/")) return `file://${encodeURI(p)}`;
  const windows = p.replace(/^\\\\\?\\UNC\\/i, "\\\\").replace(/^\\\\\?\\(?=[A-Za-z]:\\)/, "");
  if (/^[A-Za-z]:[\\/]/.test(windows)) return `file:///${encodeURI(windows.replace(/\\/g, "/"))}`;
  if (/^\\\\[^\\/?]+\\/.test(windows)) return `file:${encodeURI(windows.replace(/\\/g, "/"))}`;
  return p;
}

function basename(p: string): string {
  const parts = p.split(/[/\\]/).filter(Boolean);
  return parts[parts.length - 1] ?? p;
}

/** Reports an item kind this build does not know through onSkip. */
function onUnknown(opts: ReplayOptions): { onUnknown?: (kind: string) => void } {
  const skip = opts.onSkip;
  return skip ? { onUnknown: (kind) => skip("item of a kind this version does not know", kind) } : {};
}
