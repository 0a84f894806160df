// node:fs backend. Reads stream through a fixed 1 MiB buffer: memory follows the window, not the
// file, while every newline is counted so total_lines stays exact. Writes are atomic (temp file in
// the same directory, fsync, rename) and keep the replaced file's mode.
import { randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
// The default export (the fs.promises object) is used on purpose: unit tests can spy on it.
import fsp from "node:fs/promises";
import path from "node:path";
import { binaryFile, isADirectory, mapReadError, mapWriteError, notAFile, pathChanged } from "./errors.js";
import { windowResult, type LineSlice, type Window } from "./lines.js";
import { inPinnedDir, pinDir, type PinnedDir } from "./pinned-dir.js";

const CHUNK_BYTES = 1 << 20;
/** NUL bytes in this many leading bytes make a file binary. */
export const BINARY_SNIFF_BYTES = 8192;

const NL = 0x0a;

/** stat() of a path that must be a regular file (symlinks followed); contract errors otherwise. */
async function statRegularFile(p: string): Promise<Stats> {
  let st: Stats;
  try {
    st = await fsp.stat(p);
  } catch (err) {
    throw mapReadError(err, p);
  }
  if (!st.isFile()) throw notAFile(p);
  return st;
}

/** stat() that returns undefined for "does not exist" (including a dangling symlink). */
export async function statIfExists(p: string): Promise<Stats | undefined> {
  try {
    return await fsp.stat(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

type ScanResult = { window: Buffer; total: number; returned: number };

/**
 * Reads `p` once, front to back, keeping only the bytes of the window's lines.
 * Opens with O_NONBLOCK and re-checks fstat, so a FIFO swapped in after the stat cannot hang us.
 */
async function scan(p: string, w: Window | undefined): Promise<ScanResult> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(p, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw mapReadError(err, p);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw notAFile(p);
    // Lines [first, end) are kept; with no window everything is only counted.
    const first = w === undefined ? Infinity : w.line;
    const end = w === undefined ? -Infinity : w.limit === undefined ? Infinity : w.line + w.limit;
    const kept: Buffer[] = [];
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let lineNo = 1; // line number of the next unread byte
    let offset = 0; // file offset of buf[0]
    let lastByte = -1;
    for (;;) {
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(buf, 0, CHUNK_BYTES, null));
      } catch (err) {
        throw mapReadError(err, p);
      }
      if (n === 0) break;
      const view = buf.subarray(0, n);
      if (offset < BINARY_SNIFF_BYTES && view.subarray(0, BINARY_SNIFF_BYTES - offset).indexOf(0) !== -1) {
        throw binaryFile(p);
      }
      lastByte = view[n - 1] ?? -1;
      let pos = 0;
      while (pos < n) {
        if (lineNo >= end) {
          // Past the window: count newlines, keep nothing.
          for (let nl = view.indexOf(NL, pos); nl !== -1; nl = view.indexOf(NL, nl + 1)) lineNo++;
          break;
        }
        if (lineNo < first) {
          const nl = view.indexOf(NL, pos);
          if (nl === -1) break;
          lineNo++;
          pos = nl + 1;
          continue;
        }
        // Inside the window: advance to its end (or the chunk's), then copy once (buf is reused).
        const from = pos;
        while (pos < n && lineNo < end) {
          const nl = view.indexOf(NL, pos);
          if (nl === -1) pos = n;
          else {
            lineNo++;
            pos = nl + 1;
          }
        }
        kept.push(Buffer.from(view.subarray(from, pos)));
      }
      offset += n;
    }
    const total = offset === 0 ? 0 : lastByte === NL ? lineNo - 1 : lineNo;
    const returned = w === undefined || w.line > total ? 0 : Math.min(total, end - 1) - (w.line - 1);
    return { window: Buffer.concat(kept), total, returned };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Reads the window of a local file (the file must be a regular file; symlinks are followed). */
export async function readLocal(p: string, w: Window): Promise<LineSlice> {
  await statRegularFile(p);
  const { window, total, returned } = await scan(p, w);
  let content: string;
  try {
    content = utf8.decode(window);
  } catch {
    throw binaryFile(p);
  }
  return windowResult(content, total, returned, w);
}

/** Exact line count of a local file, streamed (nothing kept). Rejects binary files like readLocal. */
export async function countLocalLines(p: string): Promise<number> {
  return (await scan(p, undefined)).total;
}

/** Whole previous text of an existing file (for diffs); lossy decoding, never throws binary. */
export async function readWholeLocal(p: string): Promise<string> {
  try {
    return (await fsp.readFile(p)).toString("utf8");
  } catch (err) {
    throw mapReadError(err, p);
  }
}

/**
 * Existing-file check before a write: undefined when the target does not exist,
 * its Stats when it is a regular file; a directory or special file is an error.
 */
export async function statWriteTarget(target: string, p: string, bytes: number): Promise<Stats | undefined> {
  let st: Stats | undefined;
  try {
    st = await statIfExists(target);
  } catch (err) {
    throw mapWriteError(err, p, bytes);
  }
  if (st === undefined) return undefined;
  if (st.isDirectory()) throw isADirectory(p);
  if (!st.isFile()) throw notAFile(p);
  return st;
}

/**
 * Atomic replace of `target` (already resolved) with `content`; keeps `existing`'s mode and owner
 * (on Windows only the read-only bit: chmod means no more there, and chown is not done).
 */
export async function writeAtomic(
  target: string,
  content: string,
  existing: Stats | undefined,
  p: string,
  platform: NodeJS.Platform = process.platform,
): Promise<number> {
  const data = Buffer.from(content, "utf8");
  const bytes = data.length;
  const dir = path.dirname(target);
  const name = path.basename(target);
  // Held open from here to the rename: a folder swapped for a link meanwhile cannot move the temp
  // file or the rename elsewhere (pinned-dir.ts), and one swapped already is refused.
  const pinned = await pinDir(dir, () => pathChanged(p), platform).catch((err: unknown) => {
    throw mapWriteError(err, p, bytes);
  });
  const tmp = pinned.at(tempName(name));
  let fh: fsp.FileHandle | undefined;
  let tmpCreated = false;
  try {
    fh = await fsp.open(tmp, "wx", existing ? existing.mode & 0o7777 : 0o666);
    tmpCreated = true;
    if (existing) {
      await fh.chmod(existing.mode & 0o7777); // open's mode was masked by the umask
      if (process.getuid?.() === 0) await fh.chown(existing.uid, existing.gid).catch(() => undefined);
    }
    await fh.writeFile(data);
    await fh.sync();
    await fh.close();
    fh = undefined;
    await pinned.recheck();
    await renameOver(tmp, pinned.at(name), platform);
    tmpCreated = false;
    await pinned.sync();
    await removeStaleTemps(pinned, name);
  } catch (err) {
    if (fh) await fh.close().catch(() => undefined);
    if (tmpCreated) await fsp.unlink(tmp).catch(() => undefined);
    throw mapWriteError(err, p, bytes);
  } finally {
    await pinned.close().catch(() => undefined);
  }
  return bytes;
}

/**
 * Removes the file (or link) at canonical `target` through its folder held open (pinned-dir.ts):
 * a folder swapped for a link after the policy judged it cannot turn the delete on another
 * folder's file. Errors as fs.unlink's.
 */
export async function removeInDir(target: string, changed: () => Error): Promise<void> {
  await inPinnedDir(path.dirname(target), changed, async (pinned) => {
    await pinned.recheck();
    await fsp.unlink(pinned.at(path.basename(target)));
  });
}

/**
 * Our temp file's name beside `name`: `.{name}.{12 hex}.tmp`, the name cut so the whole stays
 * within a file name's 255 bytes (a legal name of 238-255 bytes made it ENAMETOOLONG).
 */
function tempName(name: string): string {
  return `.${tempStem(name)}.${randomBytes(6).toString("hex")}.tmp`;
}

/** The part of `name` our temp names keep: all of it but what would take them past 255 bytes (the dot before it, `.{12 hex}.tmp` after). */
function tempStem(name: string): string {
  return cutToBytes(name, NAME_MAX_BYTES - 1 - TEMP_SUFFIX_BYTES);
}

/** The longest file name most filesystems take, in bytes. */
const NAME_MAX_BYTES = 255;
/** `.{12 hex}.tmp` */
const TEMP_SUFFIX_BYTES = 17;

/** `text` cut to at most `max` UTF-8 bytes, never inside a character. */
function cutToBytes(text: string, max: number): string {
  if (Buffer.byteLength(text, "utf8") <= max) return text;
  let out = "";
  let used = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, "utf8");
    if (used + size > max) break;
    out += ch;
    used += size;
  }
  return out;
}

/** How long a Windows rename is tried again (~0.6 s in all): long enough for a scan of a new file, short for a turn. */
const WINDOWS_RENAME_RETRY_MS = [10, 20, 40, 80, 160, 320] as const;

/**
 * rename(2) of our temp file over the target. On Windows a virus scanner or the search indexer
 * opening the freshly written file makes the rename fail (EPERM, EACCES, EBUSY) for a moment: it
 * is tried again for a little while before the write is refused (graceful-fs does the same, for a
 * minute). Elsewhere those errors are real refusals, reported at once.
 */
async function renameOver(tmp: string, target: string, platform: NodeJS.Platform): Promise<void> {
  for (const waitMs of platform === "win32" ? WINDOWS_RENAME_RETRY_MS : []) {
    try {
      return await fsp.rename(tmp, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EPERM" && code !== "EACCES" && code !== "EBUSY") throw err;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
  await fsp.rename(tmp, target);
}

/** A temp file of ours older than this was left by a write that never finished (the process was killed). */
const STALE_TEMP_MS = 10 * 60_000;

/** Removes `.{name}.{12 hex}.tmp` files left beside `name` by killed writes (ours only, and only old ones). */
async function removeStaleTemps(dir: PinnedDir, name: string): Promise<void> {
  const ours = new RegExp(`^\\.${tempStem(name).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.[0-9a-f]{12}\\.tmp$`);
  const entries = await fsp.readdir(dir.at(".")).catch(() => [] as string[]);
  for (const entry of entries) {
    if (!ours.test(entry)) continue;
    const file = dir.at(entry);
    const st = await fsp.lstat(file).catch(() => undefined);
    if (st?.isFile() && Date.now() - st.mtimeMs > STALE_TEMP_MS) await fsp.unlink(file).catch(() => undefined);
  }
}
