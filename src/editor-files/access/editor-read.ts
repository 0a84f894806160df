// A read the editor serves, made into the read contract's result, on its own: the window of a large
// file (asked of the editor, counted on disk), the binary checks on the editor's text, and whether
// the buffer differs from the disk (unsaved_changes). access.ts only chooses who serves a read.
import type { EditorFiles } from "./editor.js";
import { binaryFile } from "./errors.js";
import {
  countTextLines,
  hasLoneSurrogate,
  sliceText,
  textHasNulWithin,
  windowResult,
  withLfEndings,
  type Window,
} from "./lines.js";
import { BINARY_SNIFF_BYTES, countLocalLines, readWholeLocal } from "./local.js";

export type ReadResult = {
  content: string;
  total_lines: number;
  returned_lines: number;
  has_more: boolean;
  next_line?: number;
  /** Set (true) when the editor served the read and its text differs from the file on disk. */
  unsaved_changes?: true;
  /** Set (true) when the file lies outside the session's workspace roots (after links and ".."). */
  outside_workspace?: true;
  /** Set when the editor's text is no longer what this session wrote there (said once per edit). */
  edit_undone?: string;
};

/**
 * Above this size the client backend asks the editor for the window only (line, limit + 1) and
 * counts total_lines from disk by streaming; editors do not hold such files in memory anyway.
 * Also the size above which write() does not load the previous text for a diff (oldText null),
 * and above which a read is not compared with the disk for unsaved changes.
 */
export const LARGE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Whether the editor's text differs from the disk (cheaply: sizes first; a missing file differs).
 * Line endings do not count (withLfEndings): a size off by at most one byte per line may be a
 * CRLF file in a buffer kept with "\n", and is compared.
 */
export async function differsFromDisk(p: string, text: string, diskSize: number | undefined): Promise<boolean> {
  if (diskSize === undefined) return true;
  if (diskSize > LARGE_FILE_BYTES) return false; // not compared (documented)
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes !== diskSize && Math.abs(bytes - diskSize) > countTextLines(text)) return true;
  const disk = await readWholeLocal(p).catch(() => undefined);
  return disk !== undefined && disk !== text && withLfEndings(disk) !== withLfEndings(text);
}

export function checkedSlice(text: string, p: string, w: Window): ReadResult {
  if (textHasNulWithin(text, BINARY_SNIFF_BYTES)) throw binaryFile(p);
  const r = sliceText(text, w);
  if (hasLoneSurrogate(r.content)) throw binaryFile(p);
  return r;
}

export async function readLargeViaClient(
  readFn: NonNullable<EditorFiles["readTextFile"]>,
  p: string,
  w: Window,
): Promise<ReadResult> {
  const req: { path: string; line: number; limit?: number } = { path: p, line: w.line };
  if (w.limit !== undefined) req.limit = w.limit + 1; // one extra line tells whether more follow
  const { content } = await readFn(req);
  const total = await countLocalLines(p); // throws the contract's errors (binary, ...)
  const got = sliceText(content, { line: 1, limit: w.limit });
  if (hasLoneSurrogate(got.content)) throw binaryFile(p);
  const extra = w.limit !== undefined && countTextLines(content) > w.limit;
  // The buffer may differ from disk: never report fewer lines than the editor just showed us.
  const seen = w.line - 1 + got.returned_lines + (extra ? 1 : 0);
  return windowResult(got.content, Math.max(total, seen), got.returned_lines, w);
}
