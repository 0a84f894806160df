// Error type and errno mapping for the file tools. Codes and messages are the ones in
// contracts/read_text_file.md and contracts/write_text_file.md.
import path from "node:path";

export const ErrorCode = {
  NotFound: -32001,
  Permission: -32002,
  NotAFile: -32003,
  Binary: -32004,
  DiskFull: -32005,
  /** apply_patch: a hunk's lines are not in the file (contracts/apply_patch.md). */
  PatchConflict: -32006,
  /** The call was cancelled (the turn, the session, Codex's deadline or its request) before anything was written. */
  Cancelled: -32007,
  /** The path resolved differently right before the write than when the policy judged it (a link appeared). */
  PathChanged: -32008,
  InvalidParams: -32600,
  Internal: -32603,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export class FileToolError extends Error {
  readonly code: number;
  constructor(code: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "FileToolError";
    this.code = code;
  }
  toJSON(): { code: number; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function errnoCode(err: unknown): string | undefined {
  if (typeof err === "object" && err !== null && "code" in err) {
    const c = err.code;
    return typeof c === "string" ? c : undefined;
  }
  return undefined;
}

export const notFound = (p: string): FileToolError => new FileToolError(ErrorCode.NotFound, `File not found: ${p}`);
export const notAFile = (p: string): FileToolError => new FileToolError(ErrorCode.NotAFile, `${p} is not a file`);
export const isADirectory = (p: string): FileToolError => new FileToolError(ErrorCode.NotAFile, `${p} is a directory`);
/** The refusal of a call that was cancelled before its write: nothing was written. */
export const cancelledBeforeWrite = (p: string): FileToolError =>
  new FileToolError(
    ErrorCode.Cancelled,
    `Cancelled: the call was cancelled (the turn was cancelled, or it ran past its deadline while waiting for the user) before ${p} was written. Nothing was changed.`,
  );
/** A call given up on while the editor wrote, and the editor applied it: the truth, as an error of the same kind. */
export const appliedAfterCancel = (p: string): FileToolError =>
  new FileToolError(
    ErrorCode.Cancelled,
    `Cancelled: the call was given up on while the editor was writing ${p}, but the editor applied the write: the file now holds the new content.`,
  );
/** A path that resolves elsewhere than when the write policy judged it. */
export const pathChanged = (p: string): FileToolError =>
  new FileToolError(
    ErrorCode.PathChanged,
    `Permission denied: ${p} changed between the permission check and the write (a directory or the file was replaced by a link, or the file gained another hard link). Nothing was written.`,
  );
export const binaryFile = (p: string): FileToolError =>
  new FileToolError(ErrorCode.Binary, `Cannot read binary file: ${p}`);

/** Maps a node:fs error raised while reading `p` to the read contract's error. */
export function mapReadError(err: unknown, p: string): FileToolError {
  if (err instanceof FileToolError) return err;
  switch (errnoCode(err)) {
    case "ENOENT":
    case "ENOTDIR":
    case "ELOOP":
      return notFound(p);
    case "EACCES":
    case "EPERM":
      return new FileToolError(ErrorCode.Permission, `Permission denied: ${p}`, { cause: err });
    case "EISDIR":
      return notAFile(p);
    default:
      return new FileToolError(ErrorCode.Internal, `Cannot read ${p}: ${describe(err)}`, { cause: err });
  }
}

/** Maps a node:fs error raised while writing `bytes` bytes to `p` to the write contract's error. */
export function mapWriteError(err: unknown, p: string, bytes: number): FileToolError {
  if (err instanceof FileToolError) return err;
  switch (errnoCode(err)) {
    case "EACCES":
    case "EPERM":
      return new FileToolError(ErrorCode.Permission, `Permission denied: ${p}`, { cause: err });
    case "EROFS":
      return new FileToolError(ErrorCode.Permission, `Read-only filesystem: ${p}`, { cause: err });
    case "ENOENT":
    case "ENOTDIR":
      return new FileToolError(ErrorCode.NotFound, `Parent directory not found: ${path.dirname(p)}`, { cause: err });
    case "EISDIR":
      return isADirectory(p);
    case "ENOSPC":
    case "EDQUOT":
      return new FileToolError(ErrorCode.DiskFull, `Disk full: cannot write ${bytes} bytes to ${p}`, { cause: err });
    default:
      return new FileToolError(ErrorCode.Internal, `Cannot write ${p}: ${describe(err)}`, { cause: err });
  }
}

function describe(err: unknown): string {
  return errnoCode(err) ?? (err instanceof Error ? err.message : String(err));
}
