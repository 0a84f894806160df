// Maps app-server thread items to ACP tool calls: one tool call per item id,
// `tool_call` when the item starts, `tool_call_update` when it changes or ends.
// Kinds say what a call does (read/search/edit/fetch/execute...), not which tool ran it.
import path from "node:path";
import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk";

import { completeFileToolItem, describeFileToolItem } from "./file-tools.js";
import { addedFileText, applyUnifiedDiff, readTextIfSmall as readFileIfSmall } from "./diff.js";

export type Item = { type: string; id: string } & Record<string, unknown>;

/** Items shown as streamed text rather than as tool calls. */
const TEXT_ITEMS = new Set([
  "userMessage",
  "agentMessage",
  "reasoning",
  "plan",
  "hookPrompt",
  "contextCompaction",
  "enteredReviewMode",
  "exitedReviewMode",
  "functionCallOutput",
]);

export function isToolItem(item: Item): boolean {
  return !TEXT_ITEMS.has(item.type);
}

export type ToolCallView = {
  title: string;
  kind: ToolKind;
  locations?: ToolCallLocation[];
  rawInput?: unknown;
  content?: ToolCallContent[];
};

/** Command output kept per update: the tail, so huge outputs cost O(cap) per update, not O(n). */
export const OUTPUT_TAIL_CHARS = 32 * 1024;

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

type CommandAction =
  | { type: "read"; command: string; name: string; path: string }
  | { type: "listFiles"; command: string; path: string | null }
  | { type: "search"; command: string; query: string | null; path: string | null }
  | { type: "unknown"; command: string };

/** `/bin/bash -lc 'cmd'` -> `cmd`: the command as the model wrote it. */
export function displayCommand(command: string): string {
  const m = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z)?sh -l?c '((?:[^']|'\\'')*)'$/s.exec(command);
  if (m) return m[1]!.replace(/'\\''/g, "'");
  const d = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z)?sh -l?c "((?:[^"\\]|\\.)*)"$/s.exec(command);
  if (d) return d[1]!.replace(/\\(.)/g, "$1");
  return command;
}

function resolveIn(cwd: string | undefined, p: string): string {
  return cwd && !path.isAbsolute(p) ? path.resolve(cwd, p) : p;
}

/** A command's view: `read`/`search` when every parsed action reads or searches, else `execute`. */
export function describeCommand(command: string, cwd: string | undefined, actions: CommandAction[] | undefined): ToolCallView {
  const shown = displayCommand(command);
  const rawInput = { command: shown, cwd: cwd ?? null };
  const acts = actions ?? [];
  if (acts.length > 0 && acts.every((a) => a.type === "read")) {
    const reads = acts as Extract<CommandAction, { type: "read" }>[];
    return {
      title: reads.length === 1 ? `Read ${reads[0]!.name}` : `Read ${reads.map((r) => r.name).join(", ")}`,
      kind: "read",
      locations: reads.map((r) => ({ path: resolveIn(cwd, r.path) })),
      rawInput,
    };
  }
  if (acts.length > 0 && acts.every((a) => a.type === "search" || a.type === "listFiles")) {
    const first = acts[0]!;
    const where = (first.type === "search" || first.type === "listFiles") && first.path ? first.path : undefined;
    const title =
      first.type === "search"
        ? `Search ${first.query ? `"${first.query}"` : "files"}${where ? ` in ${where}` : ""}`
        : `List ${where ?? "files"}`;
    return {
      title: acts.length === 1 ? title : shown,
      kind: "search",
      locations: where ? [{ path: resolveIn(cwd, where) }] : [],
      rawInput,
    };
  }
  return { title: shown, kind: "execute", rawInput };
}

type FileChange = { path: string; kind?: { type?: string; move_path?: string | null }; diff?: string };

/** Per-file before/after texts of a fileChange item (old texts are read when the item starts). */
export type FileBefore = Map<string, string | null | undefined>;

/** Reads the current text of every file a fileChange touches (call before the patch applies). */
export function snapshotFileChange(item: Item): FileBefore {
  const before: FileBefore = new Map();
  for (const c of (item.changes as FileChange[] | undefined) ?? []) {
    before.set(c.path, c.kind?.type === "add" ? null : readFileIfSmall(c.path));
  }
  return before;
}

/** Diff content of a fileChange: before = snapshot; after = predicted from the hunks or read from disk. */
export function fileChangeDiffs(item: Item, before: FileBefore | undefined, afterFromDisk: boolean, disk = true): ToolCallContent[] {
  // Without disk access (history replay: today's files say nothing about then), only the hunks.
  const readTextIfSmall = disk ? readFileIfSmall : (): undefined => undefined;
  const content: ToolCallContent[] = [];
  for (const c of (item.changes as FileChange[] | undefined) ?? []) {
    const kind = c.kind?.type ?? "update";
    const diff = c.diff ?? "";
    const target = c.kind?.move_path ?? c.path;
    if (kind === "add") {
      const newText = (afterFromDisk ? readTextIfSmall(c.path) : undefined) ?? addedFileText(diff);
      content.push({ type: "diff", path: c.path, oldText: null, newText });
      continue;
    }
    const oldText = before?.get(c.path) ?? (afterFromDisk ? undefined : readTextIfSmall(c.path));
    if (kind === "delete") {
      content.push({ type: "diff", path: c.path, oldText: oldText ?? diff, newText: "" });
      continue;
    }
    let newText = afterFromDisk ? readTextIfSmall(target) : undefined;
    if (newText === undefined && oldText !== undefined) newText = applyUnifiedDiff(oldText, diff);
    if (oldText !== undefined && newText !== undefined) {
      content.push({ type: "diff", path: target, oldText, newText });
    } else {
      // Too large or unreadable: show Codex's hunks as text rather than a wrong diff.
      content.push({ type: "content", content: { type: "text", text: `${target}\n${diff}` } });
    }
  }
  return content;
}

const READ_WORDS = /(^|[_\-.])(read|get|list|fetch_file|cat|show|view|describe|info|status|query|find|lookup|open)([_\-.]|$)/i;
const SEARCH_WORDS = /(search|find|grep|glob)/i;
const FETCH_WORDS = /(fetch|http|url|web|browse|download|request)/i;
const EDIT_WORDS = /(write|edit|update|create|patch|replace|insert|append|rename|save|set)/i;
const DELETE_WORDS = /(delete|remove|unlink|drop|rm)([_\-.]|$)/i;
const MOVE_WORDS = /(^|[_\-.])(move|mv|rename)([_\-.]|$)/i;

/** A sensible kind for another MCP server's tool, from its read-only hint and its name. */
export function mcpToolKind(tool: string, readOnlyHint: boolean | null | undefined): ToolKind {
  if (SEARCH_WORDS.test(tool)) return "search";
  if (FETCH_WORDS.test(tool)) return "fetch";
  if (readOnlyHint === true) return "read";
  if (DELETE_WORDS.test(tool)) return "delete";
  if (MOVE_WORDS.test(tool)) return "move";
  if (EDIT_WORDS.test(tool)) return "edit";
  if (READ_WORDS.test(tool)) return "read";
  return "other";
}

/**
 * How a tool item looks when it starts. `disk: false` never reads files (history replay);
 * `cwd` resolves the relative paths of a patch.
 */
export function describeItem(item: Item, before?: FileBefore, opts: { disk?: boolean; cwd?: string } = {}): ToolCallView {
  switch (item.type) {
    case "commandExecution":
      return describeCommand(str(item.command) ?? "command", str(item.cwd), item.commandActions as CommandAction[] | undefined);
    case "fileChange": {
      const changes = (item.changes as FileChange[] | undefined) ?? [];
      const paths = changes.map((c) => c.path);
      const verb = (c: FileChange) => (c.kind?.type === "add" ? "Create" : c.kind?.type === "delete" ? "Delete" : c.kind?.move_path ? "Move" : "Edit");
      const locations: ToolCallLocation[] = [];
      for (const c of changes) {
        locations.push({ path: c.path });
        if (c.kind?.move_path) locations.push({ path: c.kind.move_path });
      }
      return {
        title: changes.length === 1 ? `${verb(changes[0]!)} ${paths[0]}` : `Edit ${changes.length} files`,
        kind: changes.length === 1 && changes[0]!.kind?.type === "delete" ? "delete" : changes.length === 1 && changes[0]!.kind?.move_path ? "move" : "edit",
        locations,
        rawInput: { changes: changes.map((c) => ({ path: c.path, kind: c.kind?.type ?? "update", ...(c.kind?.move_path ? { movePath: c.kind.move_path } : {}) })) },
        content: fileChangeDiffs(item, before, false, opts.disk ?? true),
      };
    }
    case "mcpToolCall": {
      const own = describeFileToolItem(item, opts.cwd);
      if (own) return own;
      const tool = str(item.tool) ?? "tool";
      return {
        title: `${str(item.server) ?? "mcp"}: ${tool}`,
        kind: mcpToolKind(tool, item.readOnlyHint as boolean | null | undefined),
        rawInput: item.arguments ?? {},
      };
    }
    case "dynamicToolCall": {
      const tool = str(item.tool) ?? "tool";
      return { title: str(item.namespace) ? `${str(item.namespace)}: ${tool}` : tool, kind: mcpToolKind(tool, null), rawInput: item.arguments ?? {} };
    }
    case "webSearch": {
      const query = str(item.query);
      return { title: query ? `Search the web: ${query}` : "Search the web", kind: "fetch", rawInput: { query: query ?? null } };
    }
    case "imageView": {
      const p = str(item.path);
      return { title: p ? `View image ${p}` : "View image", kind: "read", locations: p ? [{ path: p }] : [], rawInput: { path: p ?? null } };
    }
    case "collabAgentToolCall":
      return { title: `Agent: ${str(item.tool) ?? "task"}`, kind: "think", rawInput: { prompt: item.prompt ?? null } };
    default:
      return { title: item.type, kind: "other", rawInput: item };
  }
}

export function statusOf(item: Item): ToolCallStatus {
  switch (item.status) {
    case "completed":
      return "completed";
    case "failed":
    case "declined":
      return "failed";
    case "inProgress":
      return "in_progress";
    default:
      return item.type === "mcpToolCall" && item.error ? "failed" : "completed";
  }
}

/** The last `cap` characters of a command's output, marked when cut. */
export function outputTail(output: string, cap = OUTPUT_TAIL_CHARS): string {
  if (output.length <= cap) return output;
  return `[… ${output.length - cap} earlier characters not shown]\n${output.slice(-cap)}`;
}

function text(t: string): ToolCallContent {
  return { type: "content", content: { type: "text", text: t } };
}

/** The final update of a tool item. */
export function completedItemUpdate(item: Item, before?: FileBefore): Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }> {
  const fileTool = completeFileToolItem(item);
  if (fileTool) return fileTool;
  const content: ToolCallContent[] = [];
  let rawOutput: unknown;
  switch (item.type) {
    case "commandExecution": {
      const output = str(item.aggregatedOutput) ?? "";
      const exitCode = typeof item.exitCode === "number" ? item.exitCode : null;
      if (output) content.push(text(outputTail(output)));
      if (item.status === "declined") content.push(text("Not run: the command was rejected."));
      else if (exitCode !== null) content.push(text(`Exit code: ${exitCode}`));
      rawOutput = { exitCode, output: outputTail(output), ...(typeof item.durationMs === "number" ? { durationMs: item.durationMs } : {}) };
      break;
    }
    case "fileChange": {
      if (item.status === "completed") content.push(...fileChangeDiffs(item, before, true));
      else if (item.status === "declined") content.push(text("Not applied: the change was rejected."));
      else if (item.status === "failed") content.push(text("The patch could not be applied."));
      rawOutput = { status: item.status };
      break;
    }
    case "mcpToolCall": {
      const result = item.result as { content?: unknown[]; structuredContent?: unknown } | null | undefined;
      const error = item.error as { message?: string } | null | undefined;
      for (const block of result?.content ?? []) {
        const b = block as { type?: string; text?: string; data?: string; mimeType?: string; resource?: { uri?: string; text?: string } };
        if (b.type === "text" && typeof b.text === "string") content.push(text(b.text));
        else if (b.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string")
          content.push({ type: "content", content: { type: "image", data: b.data, mimeType: b.mimeType } });
        else if (b.type === "resource" && typeof b.resource?.text === "string") content.push(text(b.resource.text));
      }
      if (content.length === 0 && result?.structuredContent != null) content.push(text(JSON.stringify(result.structuredContent, null, 2)));
      if (error?.message) content.push(text(error.message));
      rawOutput = error ? { error } : result;
      break;
    }
    case "dynamicToolCall": {
      for (const c of (item.contentItems as Array<{ type?: string; text?: string }> | null | undefined) ?? []) {
        if (typeof c.text === "string") content.push(text(c.text));
      }
      rawOutput = { success: item.success ?? null };
      break;
    }
    case "webSearch": {
      rawOutput = { action: item.action ?? null };
      break;
    }
    default:
      rawOutput = undefined;
  }
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: item.id,
    status: statusOf(item),
    ...(content.length ? { content } : {}),
    ...(rawOutput !== undefined ? { rawOutput } : {}),
  };
}
