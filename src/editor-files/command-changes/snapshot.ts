// What a file is at one moment, as much as a diff needs and no more: its text when it is a
// regular file of readable size and UTF-8, else only that it is there (a binary, a 2 GB file, a
// folder, a FIFO are named, never read). Two states of one path give the change a command made.
import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";

/** A file larger than this is named without its text (the diff would be unreadable anyway). */
export const MAX_TEXT_BYTES = 1024 * 1024;

export type FileState =
  | { kind: "absent" }
  /** A regular file; `text` when it is UTF-8 of at most MAX_TEXT_BYTES, `why` when it is not. */
  | { kind: "file"; size: number; mtimeMs: number; ino: number; text?: string; why?: "binary" | "large" }
  /** Something that is not a regular file (a folder, a link, a FIFO): named, never read. */
  | { kind: "other"; what: string };

export type Change =
  | { path: string; op: "add"; after: Extract<FileState, { kind: "file" }> }
  | {
      path: string;
      op: "modify";
      before: Extract<FileState, { kind: "file" }>;
      after: Extract<FileState, { kind: "file" }>;
    }
  | { path: string; op: "delete"; before: Extract<FileState, { kind: "file" }> }
  /** A file became something else, or something else became a file: named only. */
  | { path: string; op: "replace"; what: string }
  /** A file the command did not name, changed or deleted: its earlier text was never read, so it is named only. */
  | { path: string; op: "unnamed"; what: "changed" | "deleted" };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The state of `file` now. Never throws: what cannot be looked at is "other" with the reason. */
export async function fileState(file: string): Promise<FileState> {
  let st;
  try {
    st = await lstat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "absent" } : { kind: "other", what: code ?? "unreadable" };
  }
  if (!st.isFile())
    return { kind: "other", what: st.isDirectory() ? "folder" : st.isSymbolicLink() ? "link" : "special file" };
  const base = { kind: "file" as const, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
  if (st.size > MAX_TEXT_BYTES) return { ...base, why: "large" };
  const bytes = await readUpTo(file, Math.min(st.size, MAX_TEXT_BYTES), MAX_TEXT_BYTES);
  if (bytes === undefined) return { kind: "other", what: "unreadable" };
  if (bytes.length > MAX_TEXT_BYTES) return { ...base, why: "large" };
  if (bytes.includes(0)) return { ...base, why: "binary" };
  try {
    return { ...base, text: utf8.decode(bytes) };
  } catch {
    return { ...base, why: "binary" };
  }
}

/**
 * The file's bytes, read into a buffer of its size as lstat saw it (`expected`) and grown up to
 * `max + 1` (one more tells it grew past the limit meanwhile); O_NOFOLLOW, so a link swapped in is not read.
 */
async function readUpTo(file: string, expected: number, max: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    let buf = Buffer.alloc(expected + 1);
    let got = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
      if (got < buf.length) continue;
      // Longer than it was at the lstat: read on, up to one byte past the limit.
      if (buf.length > max) break;
      const grown = Buffer.alloc(Math.min(buf.length * 2, max + 1));
      buf.copy(grown, 0, 0, got);
      buf = grown;
    }
    return buf.subarray(0, got);
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** What happened to `path` between two states, or undefined when nothing did. */
export function changeOf(path: string, before: FileState, after: FileState): Change | undefined {
  if (before.kind === "absent" && after.kind === "absent") return undefined;
  if (before.kind === "file" && after.kind === "file") {
    const same =
      before.text !== undefined && after.text !== undefined
        ? before.text === after.text
        : before.size === after.size && before.mtimeMs === after.mtimeMs && before.ino === after.ino;
    return same ? undefined : { path, op: "modify", before, after };
  }
  if (before.kind === "absent" && after.kind === "file") return { path, op: "add", after };
  if (before.kind === "file" && after.kind === "absent") return { path, op: "delete", before };
  if (before.kind === "other" && after.kind === "other") return undefined;
  const what = after.kind === "other" ? `now a ${after.what}` : after.kind === "absent" ? "removed" : "now a file";
  return { path, op: "replace", what };
}
