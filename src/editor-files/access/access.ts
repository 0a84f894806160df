// FileAccess: one interface, two backends. The editor (ACP fs/* methods, injected as EditorFiles)
// serves a call when it has the capability, and its answer is final (src/editor-files/access/editor.ts); node:fs
// serves it otherwise. Validation, the write policy and the error contract are the same on both.
import path from "node:path";
import { log as defaultLog, type Logger } from "../../log/index.js";
import {
  checkedEditorRead,
  editorReadError,
  editorReason,
  editorWriteError,
  isMethodNotFound,
  type EditorFiles,
} from "./editor.js";
import {
  appliedAfterCancel,
  binaryFile,
  cancelledBeforeWrite,
  ErrorCode,
  FileToolError,
  notAFile,
  pathChanged,
} from "./errors.js";
import { describeDrift, EditLedger, type EditDrift } from "./ledger.js";
import {
  countTextLines,
  hasLoneSurrogate,
  sliceText,
  textHasNulWithin,
  windowResult,
  withLfEndings,
  type Window,
} from "./lines.js";
import {
  BINARY_SNIFF_BYTES,
  countLocalLines,
  readLocal,
  readWholeLocal,
  statIfExists,
  statWriteTarget,
  writeAtomic,
} from "./local.js";
import {
  applyPatchFiles,
  type FileChange,
  type PatchParams,
  type PatchResult,
  type ServedBy,
  type TextStore,
} from "./patch-files.js";
import { WriteQueue } from "./queue.js";
import {
  askReason,
  canonicalEntryPath,
  canonicalPath,
  decideCanonical,
  isInsideRoots,
  isSystemPath,
  type SessionMode,
} from "./policy.js";
import { validateReadParams, validateWriteParams, type ReadParams, type WriteParams } from "./validate.js";

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
export type WriteResult = { success: true; bytes_written: number; created: boolean };
export type { EditDrift, EditorFiles, FileChange, ServedBy };

/**
 * What a call carries besides its arguments. `call` names the tool call a permission prompt
 * belongs to (handed to WritePolicy.ask as is). `signal` aborts the call: a pending prompt is
 * withdrawn, and a call aborted before its write writes nothing (-32007).
 */
export type CallOptions = {
  call?: unknown;
  signal?: AbortSignal;
  /** A patch that failed half way is about to put back the files it wrote (each a write the editor may ask about). */
  onRollback?: (r: { files: string[]; reason: string }) => Promise<void>;
};

export interface FileAccess {
  /** `signal`: the call was given up on (a cancel): an editor read still out is withdrawn. */
  read(p: ReadParams, o?: { signal?: AbortSignal }): Promise<ReadResult & { servedBy: ServedBy }>;
  /**
   * oldText: the previous text for a diff; null when the file was created (or is over
   * LARGE_FILE_BYTES); undefined when the editor would not show it. `call` is handed to
   * WritePolicy.ask as is (it names the tool call a permission prompt belongs to).
   */
  write(
    p: WriteParams,
    opts?: CallOptions,
  ): Promise<WriteResult & { servedBy: ServedBy; oldText: string | null | undefined }>;
  /** Applies a patch in Codex's grammar, all or nothing (contracts/apply_patch.md). */
  applyPatch(p: PatchParams, opts: { cwd: string } & CallOptions): Promise<PatchResult>;
  /**
   * The files written through the editor since the last call whose text the editor no longer holds
   * as written (or that landed after the model was told they failed); each edit is checked once.
   */
  takeDrift(): Promise<EditDrift[]>;
}

/** Session policy for writes, read at every call (the mode can change during a session). */
export interface WritePolicy {
  mode(): SessionMode;
  roots(): readonly string[];
  /**
   * Asked when decideWrite says "ask" for any of `changes` (one question for a whole patch);
   * resolve true to go ahead. Absent = treat "ask" as denied.
   */
  ask?(req: { changes: FileChange[]; call?: unknown; signal?: AbortSignal }): Promise<boolean>;
}

/**
 * Above this size the client backend asks the editor for the window only (line, limit + 1) and
 * counts total_lines from disk by streaming; editors do not hold such files in memory anyway.
 * Also the size above which write() does not load the previous text for a diff (oldText null),
 * and above which a read is not compared with the disk for unsaved changes.
 */
export const LARGE_FILE_BYTES = 16 * 1024 * 1024;

export function createFileAccess(
  opts: { editor?: EditorFiles; logger?: Logger; policy?: WritePolicy } = {},
): FileAccess {
  const logger = opts.logger ?? defaultLog;
  const editorRead = opts.editor?.readTextFile
    ? checkedEditorRead(opts.editor.readTextFile.bind(opts.editor))
    : undefined;
  const editorWrite = opts.editor?.writeTextFile?.bind(opts.editor);
  const queue = new WriteQueue();
  const ledger = new EditLedger();

  const fallingBack = (p: string, err: unknown, method: string): void =>
    logger.info({ path: p, reason: editorReason(err) }, `the client does not implement ${method}; using node:fs`);

  async function read(
    input: ReadParams,
    o: { signal?: AbortSignal } = {},
  ): Promise<ReadResult & { servedBy: ServedBy }> {
    const p = validateReadParams(input);
    if (isSystemPath(p.path)) throw notAFile(p.path);
    let result = await readServed(p, o.signal);
    if (result.servedBy === "client" && ledger.size > 0 && !result.has_more && p.line === undefined) {
      // A whole-file read shows whether the user undid an edit of ours (a window cannot tell).
      const drift = ledger.driftOnRead(canonicalPath(p.path), result.content);
      if (drift) result = { ...result, edit_undone: describeDrift([drift]) };
    }
    // Reads may go anywhere the user could look, but one outside the workspace is said so.
    if (opts.policy && !isInsideRoots(p.path, opts.policy.roots())) {
      logger.info({ path: p.path }, "read outside the workspace roots");
      return { ...result, outside_workspace: true };
    }
    return result;
  }

  async function readServed(p: ReadParams, signal?: AbortSignal): Promise<ReadResult & { servedBy: ServedBy }> {
    const w: Window = { line: p.line ?? 1, limit: p.limit };
    if (editorRead) {
      // Special files and directories are refused before the editor is asked (a FIFO must not hang).
      const st = await statIfExists(p.path).catch(() => undefined);
      if (st && !st.isFile()) throw notAFile(p.path);
      try {
        if (st && st.size > LARGE_FILE_BYTES)
          return { ...(await readLargeViaClient((r) => editorRead(r, signal), p.path, w)), servedBy: "client" };
        const { content } = await editorRead({ path: p.path }, signal);
        const result: ReadResult = checkedSlice(content, p.path, w);
        if (await differsFromDisk(p.path, content, st?.size)) result.unsaved_changes = true;
        return { ...result, servedBy: "client" };
      } catch (err) {
        if (err instanceof FileToolError) throw err;
        if (signal?.aborted)
          throw new FileToolError(ErrorCode.Cancelled, `Cancelled: ${p.path} was not read (the call was given up on)`);
        if (!isMethodNotFound(err)) throw await logged(editorReadError(err, p.path), p.path, err, "fs/read_text_file");
        fallingBack(p.path, err, "fs/read_text_file");
      }
    }
    return { ...(await readLocal(p.path, w)), servedBy: "local" };
  }

  async function write(
    input: WriteParams,
    o: CallOptions = {},
  ): Promise<WriteResult & { servedBy: ServedBy; oldText: string | null | undefined }> {
    const p = validateWriteParams(input);
    // The path judged is the path written: links are resolved once, here, and both backends get
    // this canonical path (.specify/specs/006-edits-through-the-editor/plan.md, section 3).
    const judged = canonicalPath(p.path);
    if (isSystemPath(judged)) throw notAFile(p.path);
    // Errors name the path the model gave; the prompt shows the file that would be written.
    const named = (): string => p.path;
    const askNeeded = refuseOrAsk(opts.policy, [judged], named);
    const bytes = Buffer.byteLength(p.content, "utf8");
    return queue.run(judged, async () => {
      await parentDirectory(judged, p.path);
      const existing = await statWriteTarget(judged, p.path, bytes);
      const created = existing === undefined;
      const oldText = created || existing.size > LARGE_FILE_BYTES ? null : await previousText(judged);
      if (askNeeded)
        await confirm(opts.policy, [{ path: judged, oldText: oldText ?? null, newText: p.content }], o, named);
      beforeWrite(judged, askNeeded, o.signal, p.path);
      const servedBy = await store.writeText(judged, p.content, o.signal);
      // Given up on while the editor wrote, and the editor applied it anyway: not a success for a
      // call given up on, and not "nothing was written" either (the next turn is told too).
      if (o.signal?.aborted) throw appliedAfterCancel(p.path);
      return { success: true as const, bytes_written: bytes, created, servedBy, oldText };
    });
  }

  /**
   * The last check before a write (or an unlink): a call given up on writes nothing, and the path
   * must resolve as it did when the policy judged it (no link swapped in meanwhile, no second hard
   * link where none was asked about). `entry`: the path names the entry itself (Delete, Move source).
   */
  function beforeWrite(
    judged: string,
    asked: boolean,
    signal: AbortSignal | undefined,
    given: string,
    entry = false,
  ): void {
    if (signal?.aborted) throw cancelledBeforeWrite(given);
    if ((entry ? canonicalEntryPath(judged) : canonicalPath(judged)) !== judged) throw pathChanged(given);
    if (!asked && refuseOrAsk(opts.policy, [judged], () => given)) throw pathChanged(given);
  }

  /** The text a diff starts from: the editor's buffer when it can read (undefined if it will not say), else the disk. */
  async function previousText(p: string): Promise<string | undefined> {
    if (editorRead) {
      try {
        return (await editorRead({ path: p })).content;
      } catch (err) {
        if (!isMethodNotFound(err)) {
          logger.info(
            { path: p, reason: editorReason(err) },
            "fs/read_text_file failed; the diff will have no previous text",
          );
          return undefined;
        }
      }
    }
    return readWholeLocal(p);
  }

  /** Whole-file text operations on whichever side serves them, shared by write() and patches. */
  const store: TextStore = {
    async readText(p) {
      if (editorRead) {
        try {
          return (await editorRead({ path: p })).content;
        } catch (err) {
          if (!isMethodNotFound(err)) throw await logged(editorReadError(err, p), p, err, "fs/read_text_file");
          fallingBack(p, err, "fs/read_text_file");
        }
      }
      return readWholeLocal(p);
    },
    async writeText(p, content, signal) {
      if (editorWrite) {
        try {
          await editorWrite({ path: p, content }, signal);
          // The call may have been given up on while the editor answered: the model was told it
          // failed, so the next turn tells it the edit is there after all.
          ledger.record(p, content, signal?.aborted === true);
          return "client";
        } catch (err) {
          if (!isMethodNotFound(err)) throw await logged(editorWriteError(err, p), p, err, "fs/write_text_file");
          fallingBack(p, err, "fs/write_text_file");
        }
      }
      await writeAtomic(p, content, await statWriteTarget(p, p, 0), p);
      return "local";
    },
    forget: (p) => ledger.forget(p),
    servedBy: () => (editorWrite ? "client" : "local"),
  };

  async function logged(
    error: Promise<FileToolError>,
    p: string,
    cause: unknown,
    method: string,
  ): Promise<FileToolError> {
    const e = await error;
    logger.info({ path: p, code: e.code, reason: editorReason(cause) }, `${method} failed; the editor's answer stands`);
    return e;
  }

  async function applyPatch(input: PatchParams, o: { cwd: string } & CallOptions): Promise<PatchResult> {
    return applyPatchFiles(input, {
      cwd: o.cwd,
      store,
      queue,
      guard: (paths) => refuseOrAsk(opts.policy, paths),
      confirm: (changes) => confirm(opts.policy, changes, o),
      beforeWrite: (judged, asked, entry) => beforeWrite(judged, asked, o.signal, judged, entry),
      aborted: () => o.signal?.aborted === true,
      ...(o.onRollback ? { onRollback: o.onRollback } : {}),
    });
  }

  async function takeDrift(): Promise<EditDrift[]> {
    if (!editorRead || ledger.size === 0) return [];
    return ledger.takeDrift((p) =>
      editorRead({ path: p }).then(
        (r) => r.content,
        () => undefined,
      ),
    );
  }

  return { read, write, applyPatch, takeDrift };
}

/** node:fs only. */
export function createLocalFiles(opts: { logger?: Logger; policy?: WritePolicy } = {}): FileAccess {
  return createFileAccess(opts);
}

/**
 * Whether the editor's text differs from the disk (cheaply: sizes first; a missing file differs).
 * Line endings do not count (withLfEndings): a size off by at most one byte per line may be a
 * CRLF file in a buffer kept with "\n", and is compared.
 */
async function differsFromDisk(p: string, text: string, diskSize: number | undefined): Promise<boolean> {
  if (diskSize === undefined) return true;
  if (diskSize > LARGE_FILE_BYTES) return false; // not compared (documented)
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes !== diskSize && Math.abs(bytes - diskSize) > countTextLines(text)) return true;
  const disk = await readWholeLocal(p).catch(() => undefined);
  return disk !== undefined && disk !== text && withLfEndings(disk) !== withLfEndings(text);
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

/** Throws when the mode forbids writing any of the canonical `paths`; true when one of them needs the user's yes. */
function refuseOrAsk(
  policy: WritePolicy | undefined,
  paths: readonly string[],
  named: (p: string) => string = (p) => p,
): boolean {
  if (!policy) return false;
  const mode = policy.mode();
  let ask = false;
  for (const p of paths) {
    const decision = decideCanonical({ mode, roots: policy.roots(), canonical: p });
    if (decision === "deny")
      throw new FileToolError(ErrorCode.Permission, `Permission denied: ${named(p)} (session mode is ${mode})`);
    if (decision === "ask") ask = true;
  }
  return ask;
}

/** Asks the user once for `changes`; throws the contract's refusal unless they said yes (or -32007 if the call was given up on). */
async function confirm(
  policy: WritePolicy | undefined,
  changes: FileChange[],
  o: CallOptions,
  named: (p: string) => string = (p) => p,
): Promise<void> {
  const ok = policy?.ask
    ? await policy.ask({ changes, call: o.call, ...(o.signal ? { signal: o.signal } : {}) })
    : false;
  if (o.signal?.aborted) throw cancelledBeforeWrite(changes[0]?.path ?? "the file");
  if (ok) return;
  const reasons = changes.map((c) => ({
    path: c.path,
    reason: policy ? askReason(c.path, policy.roots()) : undefined,
  }));
  const asked = reasons.find((r) => r.reason !== undefined) ?? reasons[0];
  // No reason of the policy's own: the mode asks for every write (Review Edits).
  throw new FileToolError(
    ErrorCode.Permission,
    `Permission denied: ${named(asked?.path ?? "")} (${asked?.reason ? `${asked.reason}; not approved` : "not approved in review"})`,
  );
}

/** The write contract's -32001 when the folder a write goes to is missing (before the editor is asked). */
async function parentDirectory(judged: string, given: string): Promise<void> {
  const st = await statIfExists(path.dirname(judged)).catch(() => undefined);
  if (st?.isDirectory()) return;
  // Through a link the missing folder is its target's: named, with where the path given leads.
  const viaLink =
    path.dirname(given) !== path.dirname(judged) &&
    (await statIfExists(path.dirname(given)).catch(() => undefined))?.isDirectory();
  throw new FileToolError(
    ErrorCode.NotFound,
    viaLink
      ? `Parent directory not found: ${path.dirname(judged)} (where ${given} leads)`
      : `Parent directory not found: ${path.dirname(given)}`,
  );
}
