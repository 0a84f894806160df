// FileAccess: one interface, two backends. The editor (ACP fs/* methods, injected as EditorFiles)
// serves a call when it has the capability, and its answer is final (src/editor-files/access/editor.ts); node:fs
// serves it otherwise. Validation, the write policy and the error contract are the same on both.
import { log as defaultLog, type Logger } from "../../log/index.js";
import {
  checkedEditorRead,
  editorReadError,
  editorReason,
  editorWriteError,
  isMethodNotFound,
  type EditorFiles,
} from "./editor.js";
import { checkedSlice, differsFromDisk, LARGE_FILE_BYTES, readLargeViaClient, type ReadResult } from "./editor-read.js";
import { appliedAfterCancel, ErrorCode, FileToolError, notAFile } from "./errors.js";
import { describeDrift, EditLedger, type EditDrift } from "./ledger.js";
import type { Window } from "./lines.js";
import { readLocal, readWholeLocal, statIfExists, statWriteTarget, writeAtomic } from "./local.js";
import {
  applyPatchFiles,
  type FileChange,
  type PatchParams,
  type PatchResult,
  type ServedBy,
  type TextStore,
} from "./patch-files.js";
import { WriteQueue } from "./queue.js";
import { canonicalPath, isInsideRoots, isSystemPath } from "./policy.js";
import { beforeWrite, confirm, parentDirectory, refuseOrAsk, type WritePolicy } from "./write-gate.js";
import { validateReadParams, validateWriteParams, type ReadParams, type WriteParams } from "./validate.js";

export { LARGE_FILE_BYTES };
export type WriteResult = { success: true; bytes_written: number; created: boolean };
export type { EditDrift, EditorFiles, FileChange, ReadResult, ServedBy, WritePolicy };

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
      beforeWrite(opts.policy, judged, askNeeded, o.signal, p.path);
      const servedBy = await store.writeText(judged, p.content, o.signal);
      // Given up on while the editor wrote, and the editor applied it anyway: not a success for a
      // call given up on, and not "nothing was written" either (the next turn is told too).
      if (o.signal?.aborted) throw appliedAfterCancel(p.path);
      return { success: true as const, bytes_written: bytes, created, servedBy, oldText };
    });
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
      beforeWrite: (judged, asked, entry) => beforeWrite(opts.policy, judged, asked, o.signal, judged, entry),
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
