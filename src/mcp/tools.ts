// The embedded file tools as MCP sees them: definitions (input schemas exactly as in
// contracts/read_text_file.md and contracts/write_text_file.md) and the tool results the
// model receives. No MCP SDK import here: this module is loaded at start-up by the session
// feature, the SDK only when the first MCP request arrives.
import { FileToolError, LARGE_FILE_BYTES, type FileAccess, type ReadResult, type WriteResult } from "../fs/index.js";

export const READ_TOOL = "read_text_file";
export const WRITE_TOOL = "write_text_file";

/** Key of the tool result's `_meta` that carries a write's diff to the ACP bridge (not shown to the model). */
export const DIFF_META_KEY = "codex-cli-acp/diff";

export type DiffMeta = { path: string; oldText: string | null; newText: string };

export const TOOL_DEFINITIONS = [
  {
    name: READ_TOOL,
    description:
      "Read a text file, whole or a window of lines (1-based). Returns the exact text of the selected lines and exact line counts.",
    inputSchema: {
      type: "object" as const,
      properties: {
        path: { type: "string", description: "Absolute path of the file" },
        line: { type: "integer", minimum: 1, description: "First line to return, 1-based (default 1)" },
        limit: { type: "integer", minimum: 1, description: "Maximum number of lines to return (default: all remaining lines)" },
      },
      required: ["path"],
    },
    annotations: { title: "Read text file", readOnlyHint: true, openWorldHint: false },
  },
  {
    name: WRITE_TOOL,
    description: "Create or overwrite a text file with the given complete content (UTF-8).",
    inputSchema: {
      type: "object" as const,
      properties: {
        path: { type: "string", description: "Absolute path of the file" },
        content: { type: "string", description: "The complete new content" },
      },
      required: ["path", "content"],
    },
    annotations: { title: "Write text file", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
];

/** An MCP `CallToolResult` (structurally; the SDK's type is not imported here). */
export type ToolResult = {
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: true;
  _meta?: Record<string, unknown>;
};

/** Runs one tool call against a session's file access. Never throws: failures are isError results. */
export async function callFileTool(files: FileAccess, name: string, args: unknown): Promise<ToolResult> {
  try {
    if (name === READ_TOOL) {
      const { servedBy: _servedBy, ...result } = await files.read(args as never);
      return readToolResult(result);
    }
    if (name === WRITE_TOOL) {
      const { servedBy: _servedBy, oldText, ...result } = await files.write(args as never);
      const { path, content } = args as { path: string; content: string };
      return writeToolResult(result, { path, oldText, newText: content });
    }
    return errorToolResult(-32601, `Unknown tool: ${name}`);
  } catch (err) {
    if (err instanceof FileToolError) return errorToolResult(err.code, err.message);
    return errorToolResult(-32603, `Internal error: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function readToolResult(r: ReadResult): ToolResult {
  const structured: ReadResult = {
    content: r.content,
    total_lines: r.total_lines,
    returned_lines: r.returned_lines,
    has_more: r.has_more,
    ...(r.has_more && r.next_line !== undefined ? { next_line: r.next_line } : {}),
  };
  let text = r.content;
  if (r.has_more && r.next_line !== undefined) {
    const rest = r.total_lines - r.next_line + 1;
    text += `${text === "" || text.endsWith("\n") ? "" : "\n"}\n[${rest} more lines: call again with line=${r.next_line}]`;
  }
  return { content: [{ type: "text", text }], structuredContent: structured };
}

export function writeToolResult(r: WriteResult, diff: DiffMeta): ToolResult {
  return {
    content: [{ type: "text", text: `Wrote ${r.bytes_written} bytes to ${diff.path} (${r.created ? "created" : "overwritten"})` }],
    structuredContent: { success: true, bytes_written: r.bytes_written, created: r.created },
    // The diff is for the editor only (codex passes _meta through to the item, not to the model);
    // past LARGE_FILE_BYTES it is left out rather than carried through codex.
    ...(r.bytes_written <= LARGE_FILE_BYTES ? { _meta: { [DIFF_META_KEY]: diff } } : {}),
  };
}

export function errorToolResult(code: number, message: string): ToolResult {
  return { isError: true, content: [{ type: "text", text: message }], structuredContent: { code, message } };
}
