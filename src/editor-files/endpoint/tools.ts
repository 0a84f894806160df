// The embedded file tools as MCP sees them: definitions (input schemas exactly as in
// contracts/read_text_file.md, write_text_file.md and apply_patch.md) and the tool results the
// model receives.
import {
  FileToolError,
  LARGE_FILE_BYTES,
  type FileAccess,
  type PatchedFile,
  type ReadResult,
  type WriteResult,
} from "../access/index.js";
import {
  DIFF_META_KEY,
  PATCH_TOOL,
  READ_TOOL,
  UNSAVED_META_KEY,
  WRITE_TOOL,
  type DiffMeta,
  type FileToolName,
} from "../contract/index.js";
import { JsonRpcCode } from "../../json-rpc/index.js";

export type ToolDefinition = {
  name: FileToolName;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, unknown>; required: string[] };
  annotations: Record<string, unknown>;
};

// Written in our own words; the grammar's markers are spelled out so that a model trained on
// Codex's apply_patch recognises the format it already knows.
const PATCH_DESCRIPTION = [
  "Create, change, move or delete files with a patch. The edit goes through the user's editor: hunks are matched against the editor's open buffers (unsaved changes included) and the user can review and undo the result.",
  "`input` is the whole patch. Its first line is `*** Begin Patch` and its last line is `*** End Patch`. In between, one section per file:",
  "- `*** Add File: <path>` and then every line of the new file, each starting with `+`.",
  "- `*** Delete File: <path>` alone.",
  "- `*** Update File: <path>`, optionally followed by `*** Move to: <new path>`, and then one or more hunks. A hunk begins with a line `@@`, or `@@ <line>` naming a line the change comes after (a function or class header, for instance), and continues with the old and new lines: a leading space marks an unchanged line of context, `-` a removed line, `+` an added line. Give about three lines of context above and below each change, and add `*** End of File` after a hunk that must match the end of the file.",
  "Paths are relative to the session's working directory, or absolute. The patch is all or nothing: when a hunk does not match, no file is changed and the error names the file and the lines that were not found, so read the file again and retry.",
].join("\n");

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: READ_TOOL,
    description:
      "Read a text file, whole or a window of lines (1-based). Returns the exact text of the selected lines and exact line counts. With an editor attached, the text is the editor's buffer; `unsaved_changes: true` means it differs from the file on disk.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Absolute path of the file" },
        line: { type: "integer", minimum: 1, description: "First line to return, 1-based (default 1)" },
        limit: {
          type: "integer",
          minimum: 1,
          description: "Maximum number of lines to return (default: all remaining lines)",
        },
      },
      required: ["path"],
    },
    annotations: { title: "Read text file", readOnlyHint: true, openWorldHint: false },
  },
  {
    name: WRITE_TOOL,
    description: "Create or overwrite a text file with the given complete content (UTF-8).",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Absolute path of the file" },
        content: { type: "string", description: "The complete new content" },
      },
      required: ["path", "content"],
    },
    annotations: {
      title: "Write text file",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
  {
    name: PATCH_TOOL,
    description: PATCH_DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: {
        input: { type: "string", description: "The entire patch, from `*** Begin Patch` to `*** End Patch`" },
      },
      required: ["input"],
    },
    annotations: {
      title: "Apply patch",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  },
];

/** The definitions of the named tools, in their usual order. */
export function toolDefinitions(names: readonly FileToolName[]): ToolDefinition[] {
  return TOOL_DEFINITIONS.filter((t) => names.includes(t.name));
}

/** An MCP `CallToolResult` (structurally; the SDK's type is not imported here). */
export type ToolResult = {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: true;
  _meta?: Record<string, unknown>;
};

/**
 * Per call: the session's working directory (relative patch paths), what names the call for a
 * permission prompt, and the signal that gives the call up (nothing is written after it fired).
 */
export type ToolCallContext = {
  cwd: string;
  call?: unknown;
  signal?: AbortSignal;
  /** apply_patch: told before files already written are put back (a write failed half way). */
  onRollback?(r: { files: string[]; reason: string }): Promise<void>;
};

/** Runs one tool call against a session's file access. Never throws: failures are isError results. */
export async function callFileTool(
  files: FileAccess,
  name: string,
  args: unknown,
  ctx: ToolCallContext,
): Promise<ToolResult> {
  try {
    if (name === READ_TOOL) {
      const { servedBy: _servedBy, ...result } = await files.read(
        args as never,
        ctx.signal ? { signal: ctx.signal } : {},
      );
      return readToolResult(result);
    }
    if (name === WRITE_TOOL) {
      const {
        servedBy: _servedBy,
        oldText,
        ...result
      } = await files.write(args as never, { call: ctx.call, ...(ctx.signal ? { signal: ctx.signal } : {}) });
      const { path, content } = args as { path: string; content: string };
      return writeToolResult(result, oldText === undefined ? undefined : { path, oldText, newText: content });
    }
    if (name === PATCH_TOOL) {
      const { files: changed } = await files.applyPatch(args as never, ctx);
      return patchToolResult(changed);
    }
    return errorToolResult(JsonRpcCode.MethodNotFound, `Unknown tool: ${name}`);
  } catch (err) {
    if (err instanceof FileToolError) return errorToolResult(err.code, err.message);
    return errorToolResult(
      JsonRpcCode.InternalError,
      `Internal error: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

export function readToolResult(r: ReadResult): ToolResult {
  const structured: Record<string, unknown> = {
    // First, so that a model reading the result meets it before the text.
    ...(r.edit_undone ? { edit_undone: r.edit_undone } : {}),
    content: r.content,
    total_lines: r.total_lines,
    returned_lines: r.returned_lines,
    has_more: r.has_more,
    ...(r.has_more && r.next_line !== undefined ? { next_line: r.next_line } : {}),
    // In structuredContent too: Codex shows the model that, not _meta.
    ...(r.unsaved_changes ? { [UNSAVED_META_KEY]: true } : {}),
    ...(r.outside_workspace ? { outside_workspace: true } : {}),
  };
  let text = r.content;
  if (r.has_more && r.next_line !== undefined) {
    const rest = r.total_lines - r.next_line + 1;
    text += `${text === "" || text.endsWith("\n") ? "" : "\n"}\n[${rest} more lines: call again with line=${r.next_line}]`;
  }
  return {
    content: [{ type: "text", text }],
    structuredContent: structured,
    ...(r.unsaved_changes ? { _meta: { [UNSAVED_META_KEY]: true } } : {}),
  };
}

/** `diff` undefined: the editor would not show the previous text, so no diff is offered. */
export function writeToolResult(r: WriteResult, diff: DiffMeta | undefined): ToolResult {
  return {
    content: [
      {
        type: "text",
        text: `Wrote ${r.bytes_written} bytes to ${diff?.path ?? "the file"} (${r.created ? "created" : "overwritten"})`,
      },
    ],
    structuredContent: { success: true, bytes_written: r.bytes_written, created: r.created },
    // The diff is for the editor only (codex passes _meta through to the item, not to the model);
    // past LARGE_FILE_BYTES it is left out rather than carried through codex.
    ...(diff && r.bytes_written <= LARGE_FILE_BYTES ? { _meta: { [DIFF_META_KEY]: diff } } : {}),
  };
}

const ACTION_LETTER: Record<PatchedFile["action"], string> = { add: "A", update: "M", delete: "D", move: "M" };

export function patchToolResult(files: PatchedFile[]): ToolResult {
  // The summary a model trained on Codex's apply_patch expects: one letter per file.
  const lines = files.map((f) => `${ACTION_LETTER[f.action]} ${f.movedTo ?? f.path}`);
  const diffs: DiffMeta[] = [];
  for (const f of files) {
    const size = (f.oldText?.length ?? 0) + (f.newText?.length ?? 0);
    if (size <= LARGE_FILE_BYTES)
      diffs.push({ path: f.movedTo ?? f.path, oldText: f.oldText, newText: f.newText ?? "" });
  }
  return {
    content: [{ type: "text", text: `Success. Updated the following files:\n${lines.join("\n")}` }],
    structuredContent: {
      success: true,
      files: files.map((f) => ({
        path: f.path,
        action: f.action,
        ...(f.movedTo !== undefined ? { moved_to: f.movedTo } : {}),
      })),
    },
    ...(diffs.length > 0 ? { _meta: { [DIFF_META_KEY]: diffs } } : {}),
  };
}

export function errorToolResult(code: number, message: string): ToolResult {
  return { isError: true, content: [{ type: "text", text: message }], structuredContent: { code, message } };
}
