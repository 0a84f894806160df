// How calls of our own embedded MCP file tools (read_text_file / write_text_file /
// apply_patch) look in the editor: kind read/edit (delete/move for a patch that only deletes
// or moves), the file and range in the title, locations for every file, and the full
// before/after diff of every file written. Returns undefined for any other item.
// The app-server `mcpToolCall` item is the single source of these tool calls (one
// `tool_call` at item/started, one `tool_call_update` at item/completed); the MCP
// handler itself sends no updates. Shapes: contracts/*_text_file.md, "ACP events".
import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { SessionUpdate } from "./view.js";
import { describePatch } from "../editor-files/patch/index.js";
import {
  diffsInMeta,
  FILE_TOOLS_SERVER,
  isFileToolName,
  PATCH_TOOL,
  READ_TOOL,
  type FileToolName,
} from "../editor-files/contract/index.js";
import { jsonFields } from "../codex/index.js";
import { textContent, type ItemOf, type ToolCallView } from "./view.js";

type McpItem = ItemOf<"mcpToolCall">;
/** rawInput.content / rawOutput.content are cut past this many bytes (the model still gets everything). */
export const RAW_TEXT_LIMIT = 10 * 1024;

type ToolUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;

function fileTool(item: McpItem): FileToolName | undefined {
  if (item.server !== FILE_TOOLS_SERVER) return undefined;
  return isFileToolName(item.tool) ? item.tool : undefined;
}

const posInt = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v >= 1 ? v : undefined;

/** Cuts text past RAW_TEXT_LIMIT UTF-8 bytes (never inside a character), with the contract's suffix. */
export function truncateRaw(text: string): string {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= RAW_TEXT_LIMIT) return text;
  let cut = Buffer.from(text, "utf8").subarray(0, RAW_TEXT_LIMIT).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  return `${cut}…[truncated, ${bytes} bytes]`;
}

/** "Read /a.ts", "Read /a.ts (lines 10-14)", "Read /a.ts (from line 10)". */
export function readTitle(path: string, line: number | undefined, limit: number | undefined): string {
  if (limit !== undefined) {
    const first = line ?? 1;
    return `Read ${path} (${limit === 1 ? `line ${first}` : `lines ${first}-${first + limit - 1}`})`;
  }
  if (line !== undefined && line > 1) return `Read ${path} (from line ${line})`;
  return `Read ${path}`;
}

/** A patch's tool call: what it will do to which files. `cwd` resolves its relative paths. */
export function describePatchCall(input: string, cwd: string | undefined): ToolCallView {
  const summary = describePatch(input, cwd);
  const rawInput = { input: truncateRaw(input) };
  if (!summary) return { title: "Apply patch", kind: "edit", locations: [], rawInput };
  return { title: summary.title, kind: summary.kind, locations: summary.paths.map((path) => ({ path })), rawInput };
}

export function describeFileToolItem(item: McpItem, cwd?: string): ToolCallView | undefined {
  const tool = fileTool(item);
  if (!tool) return undefined;
  const a = jsonFields(item.arguments);
  if (tool === PATCH_TOOL) return describePatchCall(typeof a.input === "string" ? a.input : "", cwd);
  const path = typeof a.path === "string" ? a.path : "";
  if (tool === READ_TOOL) {
    const line = posInt(a.line);
    const limit = posInt(a.limit);
    return {
      title: path ? readTitle(path, line, limit) : "Read file",
      kind: "read",
      locations: path ? [{ path, line: line ?? 1 }] : [],
      rawInput: a,
    };
  }
  const rawInput = typeof a.content === "string" ? { ...a, content: truncateRaw(a.content) } : a;
  return {
    title: path ? `Write ${path}` : "Write file",
    kind: "edit",
    locations: path ? [{ path, line: 1 }] : [],
    rawInput,
  };
}

export function completeFileToolItem(item: McpItem): ToolUpdate | undefined {
  const tool = fileTool(item);
  if (!tool) return undefined;
  const result = item.result;
  const error = item.error;
  const structured =
    result?.structuredContent &&
    typeof result.structuredContent === "object" &&
    !Array.isArray(result.structuredContent)
      ? jsonFields(result.structuredContent)
      : undefined;
  const flaggedError = result != null && "isError" in result && result.isError === true;
  const isError =
    item.status === "failed" ||
    !!error ||
    flaggedError ||
    (structured !== undefined && "code" in structured && !("success" in structured) && !("total_lines" in structured));
  if (isError || !structured) {
    const message =
      (typeof structured?.message === "string" ? structured.message : undefined) ??
      firstText(result?.content) ??
      error?.message ??
      `${tool} failed`;
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: item.id,
      status: "failed",
      content: [textContent(message)],
      rawOutput: structured && typeof structured.code === "number" ? { code: structured.code, message } : { message },
    };
  }
  if (tool === READ_TOOL) {
    const rawOutput =
      typeof structured.content === "string" ? { ...structured, content: truncateRaw(structured.content) } : structured;
    return { sessionUpdate: "tool_call_update", toolCallId: item.id, status: "completed", rawOutput };
  }
  const content: ToolCallContent[] = diffsInMeta(result?._meta).map((d) => ({
    type: "diff",
    path: d.path,
    oldText: d.oldText,
    newText: d.newText,
  }));
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: item.id,
    status: "completed",
    ...(content.length ? { content } : {}),
    rawOutput: structured,
  };
}

function firstText(content: readonly unknown[] | undefined): string | undefined {
  for (const block of content ?? []) {
    const b = jsonFields(block);
    if (b.type === "text" && typeof b.text === "string") return b.text;
  }
  return undefined;
}
