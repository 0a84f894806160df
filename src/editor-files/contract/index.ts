// The embedded file tools' contract, shared by the MCP server that serves them (src/editor-files/endpoint), the
// session feature that registers them (src/editor-files/feature.ts) and the mapping that shows them (src/bridge):
// their names, and the `_meta` entries of their results. No imports, so any layer may use it
// without loading the others. Contracts: contracts/{read_text_file,write_text_file,apply_patch}.md.

/** Name of the embedded MCP server in the thread's `config.mcp_servers` (tools are `mcp__acp_fs__*` to the model). */
export const FILE_TOOLS_SERVER = "acp_fs";
export const READ_TOOL = "read_text_file";
export const WRITE_TOOL = "write_text_file";
export const PATCH_TOOL = "apply_patch";
export type FileToolName = typeof READ_TOOL | typeof WRITE_TOOL | typeof PATCH_TOOL;

export function isFileToolName(name: unknown): name is FileToolName {
  return name === READ_TOOL || name === WRITE_TOOL || name === PATCH_TOOL;
}

/** Key of a result's `_meta` carrying the diffs of a write or patch to the editor (not shown to the model). */
export const DIFF_META_KEY = "codex-cli-acp/diff";
/** Key of a read result's `_meta` (and structuredContent) set when the editor's text differs from the disk. */
export const UNSAVED_META_KEY = "unsaved_changes";

/** One file's change. oldText null: the file was created. newText "": the file was deleted. */
export type DiffMeta = { path: string; oldText: string | null; newText: string };

/** The diffs in a result's `_meta`: one object (write_text_file, older sessions) or a list (apply_patch). */
export function diffsInMeta(meta: unknown): DiffMeta[] {
  if (!meta || typeof meta !== "object") return [];
  const value = (meta as Record<string, unknown>)[DIFF_META_KEY];
  const list: unknown[] = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const out: DiffMeta[] = [];
  for (const d of list) {
    if (!d || typeof d !== "object") continue;
    const { path, oldText, newText } = d as Record<string, unknown>;
    if (typeof path === "string" && typeof newText === "string")
      out.push({ path, oldText: typeof oldText === "string" ? oldText : null, newText });
  }
  return out;
}

/**
 * Key of a v1 diff's `_meta` saying what the change does to its file where the texts cannot:
 * `{operation: "delete"}` (a deleted file, not one emptied), `{operation: "move", oldPath}`.
 * A v2 client reads it as the change's operation (src/protocol-v2/diffs.ts).
 */
export const CHANGE_META_KEY = "codex-cli-acp/change";
