// apply_patch over files (contracts/apply_patch.md): a patch in Codex's grammar, applied all or
// nothing. Every operation is checked against the texts the editor shows (or the disk) before
// anything is written; then Add and Update go out as whole-file writes (fs/write_text_file when
// the editor has the capability), Delete and the source side of a Move are done on disk (ACP has
// no such editor call), all under the session's write policy. If a write fails half way, the
// files already written are put back.
import fsp from "node:fs/promises";
import path from "node:path";
import { applyHunks, parsePatch, PatchConflictError, PatchSyntaxError, type PatchOperation } from "../patch/index.js";
import {
  binaryFile,
  cancelledBeforeWrite,
  errnoCode,
  ErrorCode,
  FileToolError,
  isADirectory,
  mapWriteError,
  notAFile,
  notFound,
  pathChanged,
} from "./errors.js";
import { textHasNulWithin } from "./lines.js";
import { canonicalEntryPath, canonicalPath, isSystemPath } from "./policy.js";
import { BINARY_SNIFF_BYTES, removeInDir, statIfExists } from "./local.js";
import { inPinnedDir, makeFolders } from "./pinned-dir.js";
import type { WriteQueue } from "./queue.js";
import { validatePatchParams, type PatchParams } from "./validate.js";

export type { PatchParams };
export type ServedBy = "client" | "local";

/**
 * One file a write or a patch changes, as the user is shown it. `deleted`: the file goes away (a
 * patch's Delete); `newText` is then "", as a diff shows it. `movedFrom`: the file at `path` is
 * the one that was there (a Move: that one is gone after).
 */
export type FileChange = { path: string; oldText: string | null; newText: string; deleted?: true; movedFrom?: string };

export type PatchedFile = {
  path: string;
  action: "add" | "update" | "delete" | "move";
  /** For a move: where the file went (its new text is `newText`). */
  movedTo?: string;
  /** Null when the file did not exist. */
  oldText: string | null;
  /** Null when the file is gone (deleted). */
  newText: string | null;
};

export type PatchResult = { files: PatchedFile[]; servedBy: ServedBy };

/** Whole-file text on the side that serves the session (the editor or the disk). */
export type TextStore = {
  /** The text of an existing file; the contract's errors otherwise. */
  readText(p: string): Promise<string>;
  /** Writes the whole text to the canonical path `p` (the policy has decided); `signal` withdraws an editor request in flight. */
  writeText(p: string, content: string, signal?: AbortSignal): Promise<ServedBy>;
  /** The file is gone (deleted by the patch): nothing of it to compare later. */
  forget(p: string): void;
  servedBy(): ServedBy;
};

/** Files larger than this are not patched (the whole text is held, several times, in memory). */
export const MAX_PATCH_FILE_BYTES = 64 * 1024 * 1024;

type Deps = {
  cwd: string;
  store: TextStore;
  queue: WriteQueue;
  /** Throws when the session's mode forbids a path; true when any path needs the user's yes. */
  guard(paths: string[]): boolean;
  /** Asks the user once; throws the contract's refusal unless they agree. */
  confirm(changes: FileChange[]): Promise<void>;
  /**
   * Right before each write or unlink: throws when the call was given up on, or when the judged
   * path no longer resolves to itself (`entry`: the path names the entry, not what it links to).
   */
  beforeWrite(judged: string, asked: boolean, entry: boolean): void;
  /** Whether the call was given up on (checked again once everything is written). */
  aborted(): boolean;
  /** Told before files already written are put back (the editor may ask about each of those writes). */
  onRollback?(r: { files: string[]; reason: string }): Promise<void>;
};

/** A file's text before the patch and as the patch leaves it (null: absent). */
type FileState = { before: string | null; after: string | null };

export async function applyPatchFiles(input: unknown, deps: Deps): Promise<PatchResult> {
  const { input: text } = validatePatchParams(input);
  const ops = resolvePaths(parse(text), deps.cwd);
  const paths = ops.flatMap((op) =>
    op.type === "update" && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path],
  );
  const askNeeded = deps.guard(paths);

  // Check everything first: nothing is written unless every operation applies.
  const files = new Map<string, FileState>();
  const moves = new Map<string, string>();
  const stateOf = async (p: string, mustExist: "no" | "somewhere" | "on disk"): Promise<FileState> => {
    let s = files.get(p);
    if (!s) {
      const before = await currentText(p, deps.store, mustExist);
      s = { before, after: before };
      files.set(p, s);
    }
    if (mustExist !== "no" && s.after === null) throw notFound(p);
    return s;
  };
  for (const op of ops) {
    if (op.type === "add") {
      (await stateOf(op.path, "no")).after = op.content;
    } else if (op.type === "delete") {
      (await stateOf(op.path, "on disk")).after = null; // deleted on disk: it must be there
    } else {
      // An Update may start from an editor buffer that was never saved; a Move deletes on disk.
      const source = await stateOf(op.path, op.moveTo === undefined ? "somewhere" : "on disk");
      const updated = applyOrExplain(source.after ?? "", op);
      if (op.moveTo === undefined || op.moveTo === op.path) {
        source.after = updated;
      } else {
        (await stateOf(op.moveTo, "no")).after = updated;
        source.after = null;
        moves.set(op.path, op.moveTo);
      }
    }
  }
  const changed = summarise(files, moves);
  // A patch that changes nothing (an Add of what is there) has nothing to ask about.
  if (askNeeded && changed.length > 0) {
    await deps.confirm(
      changed.map((f) => ({
        path: f.movedTo ?? f.path,
        oldText: f.oldText,
        newText: f.newText ?? "",
        ...(f.newText === null ? { deleted: true as const } : {}),
        ...(f.movedTo !== undefined ? { movedFrom: f.path } : {}),
      })),
    );
  }
  const servedBy = await writeAll(
    files,
    deps,
    askNeeded,
    new Set(
      ops.flatMap((op) =>
        op.type === "delete"
          ? [op.path]
          : op.type === "update" && op.moveTo !== undefined && op.moveTo !== op.path
            ? [op.path]
            : [],
      ),
    ),
  );
  return { files: changed, servedBy };
}

function parse(text: string): PatchOperation[] {
  let ops: PatchOperation[];
  try {
    ops = parsePatch(text);
  } catch (err) {
    if (err instanceof PatchSyntaxError)
      throw new FileToolError(ErrorCode.InvalidParams, `Invalid patch: ${err.message}`);
    throw err;
  }
  if (ops.length === 0)
    throw new FileToolError(ErrorCode.InvalidParams, "Invalid patch: it names no file to add, update or delete");
  return ops;
}

/**
 * Every path made absolute and canonical once, as the write policy judges it and as it is then
 * written: Add and Update follow links (the link stays, its target changes); Delete and the source
 * of a Move name the entry itself (unlink and rename do not follow a final link).
 */
function resolvePaths(ops: PatchOperation[], cwd: string): PatchOperation[] {
  const abs = (p: string): string => {
    if (p.includes("\0")) throw new FileToolError(ErrorCode.InvalidParams, "Invalid patch: a path contains a NUL byte");
    return path.isAbsolute(p) ? path.normalize(p) : path.resolve(cwd, p);
  };
  return ops.map((op) => {
    if (op.type === "add") return { ...op, path: canonicalPath(abs(op.path)) };
    if (op.type === "delete") return { ...op, path: canonicalEntryPath(abs(op.path)) };
    // A move onto itself is an update (compared as written: a link and its target differ once canonical).
    if (op.moveTo === undefined || abs(op.moveTo) === abs(op.path))
      return { ...op, path: canonicalPath(abs(op.path)), moveTo: undefined };
    return { ...op, path: canonicalEntryPath(abs(op.path)), moveTo: canonicalPath(abs(op.moveTo)) };
  });
}

/** The text of `p` as the session sees it, or null when there is no such file (and none is needed). */
async function currentText(
  p: string,
  store: TextStore,
  mustExist: "no" | "somewhere" | "on disk",
): Promise<string | null> {
  if (isSystemPath(p)) throw notAFile(p);
  const st = await statIfExists(p).catch(() => undefined);
  if (st?.isDirectory()) throw isADirectory(p);
  if (st && !st.isFile()) throw notAFile(p);
  if (st && st.size > MAX_PATCH_FILE_BYTES)
    throw new FileToolError(
      ErrorCode.Internal,
      `Cannot patch ${p}: it is larger than ${MAX_PATCH_FILE_BYTES / 1024 / 1024} MiB`,
    );
  // Not on disk: an Add needs nothing more; an Update may still find an unsaved editor buffer.
  if (!st && mustExist === "no") return null;
  if (!st && mustExist === "on disk") throw notFound(p);
  const text = await store.readText(p);
  if (textHasNulWithin(text, BINARY_SNIFF_BYTES)) throw binaryFile(p);
  return text;
}

function applyOrExplain(text: string, op: Extract<PatchOperation, { type: "update" }>): string {
  try {
    return applyHunks(text, op.hunks, op.path);
  } catch (err) {
    if (err instanceof PatchConflictError) {
      throw new FileToolError(
        ErrorCode.PatchConflict,
        `${err.message}\nNo file was changed. Read the file again and send a patch whose context lines match it.`,
      );
    }
    throw err;
  }
}

/** What changed, one entry per file (a move is one entry), in the order the patch named them. */
function summarise(files: Map<string, FileState>, moves: Map<string, string>): PatchedFile[] {
  const targets = new Set(moves.values());
  const out: PatchedFile[] = [];
  for (const [p, s] of files) {
    const to = moves.get(p);
    if (to !== undefined) {
      out.push({ path: p, action: "move", movedTo: to, oldText: s.before, newText: files.get(to)?.after ?? null });
      continue;
    }
    if (targets.has(p) || s.before === s.after) continue;
    const action = s.before === null ? "add" : s.after === null ? "delete" : "update";
    out.push({ path: p, action, oldText: s.before, newText: s.after });
  }
  return out;
}

/**
 * Writes, then deletions; on a failure, or when the call is given up on before the end, puts back
 * what was already done and reports it. `entries`: the paths removed as entries (Delete, Move sources).
 */
async function writeAll(
  files: Map<string, FileState>,
  deps: Deps,
  asked: boolean,
  entries: ReadonlySet<string>,
): Promise<ServedBy> {
  const undo: Array<{ path: string; run: () => Promise<unknown> }> = [];
  /** Folders made for Adds (each the deepest's path and the first one made): removed again on a rollback while empty. */
  const made: Array<{ deepest: string; first: string }> = [];
  let servedBy: ServedBy = "local";
  let current = "";
  try {
    for (const [p, s] of files) {
      if (s.after === null || s.after === s.before) continue;
      current = p;
      const after = s.after;
      deps.beforeWrite(p, asked, false);
      // Each folder made inside its parent held open: a parent swapped for a link makes none elsewhere.
      const first = await makeFolders(path.dirname(p), () => pathChanged(p)).catch((err: unknown) => {
        throw err instanceof FileToolError ? err : mapWriteError(err, p, Buffer.byteLength(after, "utf8"));
      });
      if (first !== undefined) made.push({ deepest: path.dirname(p), first });
      deps.beforeWrite(p, asked, false);
      servedBy = await deps.queue.run(p, () => deps.store.writeText(p, after));
      const before = s.before;
      undo.push({
        path: p,
        run: () =>
          before === null
            ? removeInDir(p, () => pathChanged(p)).then(() => deps.store.forget(p))
            : deps.store.writeText(p, before),
      });
    }
    for (const [p, s] of files) {
      if (s.after !== null || s.before === null) continue;
      current = p;
      const before = s.before;
      deps.beforeWrite(p, asked, entries.has(p));
      // Through the folder held open: one swapped for a link since the check cannot aim the delete elsewhere.
      await deps.queue
        .run(p, () => removeInDir(p, () => pathChanged(p)))
        .catch((err: unknown) => {
          throw errnoCode(err) === "ENOENT" ? notFound(p) : mapWriteError(err, p, 0);
        });
      deps.store.forget(p);
      undo.push({ path: p, run: () => deps.store.writeText(p, before) });
    }
    // Given up on while the last write was out: the model is told nothing was written, so it is not.
    if (deps.aborted()) throw cancelledBeforeWrite(current);
  } catch (err) {
    const e = err instanceof FileToolError ? err : mapWriteError(err, current, 0);
    if (undo.length > 0)
      await deps.onRollback?.({ files: undo.map((u) => u.path), reason: e.message }).catch(() => undefined);
    const stuck = await undoAll(undo);
    for (const folders of made.reverse()) await removeEmptyFolders(folders.deepest, folders.first);
    const note =
      undo.length === 0
        ? "No file was changed."
        : stuck.length === 0
          ? `No file was changed: the ${undo.length} already written were put back.`
          : `These files were changed and could not be put back: ${stuck.map((f) => `${f.path} (${f.reason})`).join("; ")}.`;
    throw new FileToolError(e.code, `${e.message}\n${note}`, { cause: err });
  }
  return servedBy;
}

/** Removes `deepest` and its parents up to `first` while they are empty (a folder something else wrote into stays). */
async function removeEmptyFolders(deepest: string, first: string): Promise<void> {
  for (let dir = deepest; ; dir = path.dirname(dir)) {
    // Through its parent held open, as it was made: a parent swapped for a link since is left alone.
    const removed = await inPinnedDir(
      path.dirname(dir),
      () => pathChanged(dir),
      async (parent) => {
        await parent.recheck();
        await fsp.rmdir(parent.at(path.basename(dir)));
      },
    ).then(
      () => true,
      () => false,
    );
    if (!removed) return;
    if (dir === first || path.dirname(dir) === dir) return;
  }
}

/** Puts back what was done, last first; returns the files that could not be put back, with why. */
async function undoAll(
  undo: Array<{ path: string; run: () => Promise<unknown> }>,
): Promise<Array<{ path: string; reason: string }>> {
  const stuck: Array<{ path: string; reason: string }> = [];
  for (const step of [...undo].reverse()) {
    await step.run().catch((err: unknown) => {
      stuck.push({ path: step.path, reason: err instanceof Error ? err.message : String(err) });
    });
  }
  return stuck;
}
