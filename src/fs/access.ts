// FileAccess: one interface, two backends. The editor (ACP fs/* methods, injected as EditorFiles)
// serves a call when it has the capability; otherwise, or when the editor call fails, node:fs does.
// Validation, the write policy and the error contract are the same on both paths.
import { log as defaultLog, type Logger } from "../log/index.js";
import { binaryFile, ErrorCode, FileToolError, notAFile } from "./errors.js";
import { countTextLines, hasLoneSurrogate, sliceText, textHasNulWithin, windowResult, type Window } from "./lines.js";
import {
  BINARY_SNIFF_BYTES,
  countLocalLines,
  readLocal,
  readWholeLocal,
  resolveWriteTarget,
  statIfExists,
  statWriteTarget,
  writeAtomic,
} from "./local.js";
import { decideWrite, type SessionMode } from "./policy.js";
import { validateReadParams, validateWriteParams, type ReadParams, type WriteParams } from "./validate.js";

export type ReadResult = { content: string; total_lines: number; returned_lines: number; has_more: boolean; next_line?: number };
export type WriteResult = { success: true; bytes_written: number; created: boolean };
export type ServedBy = "client" | "local";

/** What the editor offers (ACP fs/* semantics). An absent member means the capability is absent. */
export interface EditorFiles {
  /** line is 1-based, limit is a maximum number of lines; resolves to those lines' text. */
  readTextFile?(p: { path: string; line?: number; limit?: number }): Promise<{ content: string }>;
  writeTextFile?(p: { path: string; content: string }): Promise<void>;
}

export interface FileAccess {
  read(p: ReadParams): Promise<ReadResult & { servedBy: ServedBy }>;
  /** oldText: previous text for a diff; null when the file was created (or is over LARGE_FILE_BYTES). */
  write(p: WriteParams): Promise<WriteResult & { servedBy: ServedBy; oldText: string | null }>;
}

/** Session policy for writes, read at every call (the mode can change during a session). */
export interface WritePolicy {
  mode(): SessionMode;
  roots(): readonly string[];
  /** Asked when decideWrite says "ask"; resolve true to go ahead. Absent = treat "ask" as denied. */
  ask?(req: { path: string }): Promise<boolean>;
}

/**
 * Above this size the client backend asks the editor for the window only (line, limit + 1) and
 * counts total_lines from disk by streaming; editors do not hold such files in memory anyway.
 * Also the size above which write() does not load the previous text for a diff (oldText null).
 */
export const LARGE_FILE_BYTES = 16 * 1024 * 1024;

export function createFileAccess(opts: { editor?: EditorFiles; logger?: Logger; policy?: WritePolicy } = {}): FileAccess {
  const logger = opts.logger ?? defaultLog;
  const editor = opts.editor;
  const queue = new WriteQueue();

  async function read(input: ReadParams): Promise<ReadResult & { servedBy: ServedBy }> {
    const p = validateReadParams(input);
    const w: Window = { line: p.line ?? 1, limit: p.limit };
    const readFn = editor?.readTextFile?.bind(editor);
    if (readFn) {
      // Special files and directories are refused before the editor is asked (a FIFO must not hang).
      const st = await statIfExists(p.path).catch(() => undefined);
      if (st && !st.isFile()) throw notAFile(p.path);
      try {
        if (st && st.size > LARGE_FILE_BYTES) return { ...(await readLargeViaClient(readFn, p.path, w)), servedBy: "client" };
        const { content } = await readFn({ path: p.path });
        return { ...checkedSlice(content, p.path, w), servedBy: "client" };
      } catch (err) {
        if (err instanceof FileToolError) throw err;
        logger.info({ path: p.path, reason: reason(err) }, "editor fs/read_text_file failed; reading from disk");
      }
    }
    return { ...(await readLocal(p.path, w)), servedBy: "local" };
  }

  async function write(input: WriteParams): Promise<WriteResult & { servedBy: ServedBy; oldText: string | null }> {
    const p = validateWriteParams(input);
    await enforcePolicy(opts.policy, p.path);
    const bytes = Buffer.byteLength(p.content, "utf8");
    const target = await resolveWriteTarget(p.path, bytes);
    return queue.run(target, async () => {
      const existing = await statWriteTarget(target, p.path, bytes);
      const created = existing === undefined;
      const big = existing !== undefined && existing.size > LARGE_FILE_BYTES;
      const writeFn = editor?.writeTextFile?.bind(editor);
      if (writeFn) {
        try {
          const oldText = created || big ? null : await oldTextViaClient(p.path);
          await writeFn({ path: p.path, content: p.content });
          return { success: true as const, bytes_written: bytes, created, servedBy: "client" as const, oldText };
        } catch (err) {
          logger.info({ path: p.path, reason: reason(err) }, "editor fs/write_text_file failed; writing to disk");
        }
      }
      const oldText = created || big ? null : await readWholeLocal(target);
      await writeAtomic(target, p.content, existing, p.path);
      return { success: true as const, bytes_written: bytes, created, servedBy: "local" as const, oldText };
    });
  }

  async function oldTextViaClient(p: string): Promise<string> {
    const readFn = editor?.readTextFile?.bind(editor);
    if (readFn) {
      try {
        return (await readFn({ path: p })).content;
      } catch (err) {
        logger.info({ path: p, reason: reason(err) }, "editor fs/read_text_file failed; previous text from disk");
      }
    }
    return readWholeLocal(p);
  }

  return { read, write };
}

/** node:fs only. */
export function createLocalFiles(opts: { logger?: Logger; policy?: WritePolicy } = {}): FileAccess {
  return createFileAccess(opts);
}

function checkedSlice(text: string, p: string, w: Window): ReadResult {
  if (textHasNulWithin(text, BINARY_SNIFF_BYTES)) throw binaryFile(p);
  const r = sliceText(text, w);
  if (hasLoneSurrogate(r.content)) throw binaryFile(p);
  return r;
}

async function readLargeViaClient(
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

async function enforcePolicy(policy: WritePolicy | undefined, p: string): Promise<void> {
  if (!policy) return;
  const mode = policy.mode();
  const decision = decideWrite({ mode, roots: policy.roots(), path: p });
  if (decision === "allow") return;
  if (decision === "deny") {
    throw new FileToolError(ErrorCode.Permission, `Permission denied: ${p} (session mode is ${mode})`);
  }
  const ok = policy.ask ? await policy.ask({ path: p }) : false;
  if (!ok) throw new FileToolError(ErrorCode.Permission, `Permission denied: ${p} (outside the workspace; not approved)`);
}

/** Serialises writes per target path within this process (each write is atomic anyway). */
class WriteQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(job, job);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

function reason(err: unknown): string {
  if (err instanceof Error) return err.message.slice(0, 300);
  if (typeof err === "object" && err !== null && "message" in err) return String((err as { message: unknown }).message).slice(0, 300);
  return String(err).slice(0, 300);
}
