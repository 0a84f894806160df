// The editor's side of the file tools, and the rule that its answer is final (contracts/read_text_file.md:
// "Departure from the original contract"): once the client advertised a capability, an error from fs/read_text_file or
// fs/write_text_file is never turned into a disk read or write, because a client's error is
// often its user saying no. The disk is consulted only to name the error (missing file,
// directory, ...). The one exception is "Method not found": the client does not implement the
// method after all, so node:fs serves the call as it would without the capability.
import type { Stats } from "node:fs";
import path from "node:path";
import { ErrorCode, FileToolError, isADirectory, notAFile, notFound } from "./errors.js";
import { statIfExists } from "./local.js";
import { textHead } from "../../text/index.js";
import { JsonRpcCode } from "../../json-rpc/index.js";

/** What the editor offers (ACP fs/* semantics). An absent member means the capability is absent. */
export interface EditorFiles {
  /** line is 1-based, limit is a maximum number of lines; resolves to those lines' text. `signal` withdraws the request. */
  readTextFile?(p: { path: string; line?: number; limit?: number }, signal?: AbortSignal): Promise<{ content: string }>;
  /** `signal` withdraws the request (the editor may still have applied it: its answer tells). */
  writeTextFile?(p: { path: string; content: string }, signal?: AbortSignal): Promise<void>;
}

/** True when the client answered JSON-RPC "Method not found": it lacks the method it advertised. */
export function isMethodNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && "code" in err && err.code === JsonRpcCode.MethodNotFound;
}

/**
 * The editor's reason, short enough for a tool result and a log line. A JSON-RPC error's `data`
 * says more than its message when it has one: acpx answers a user's "no" as `-32603 Internal
 * error` with the reason in `data.details` (a string `data` is taken as is).
 */
export function editorReason(err: unknown): string {
  const record = typeof err === "object" && err !== null ? (err as { message?: unknown; data?: unknown }) : undefined;
  const data = record?.data;
  const detail =
    typeof data === "string"
      ? data
      : typeof data === "object" && data !== null && "details" in data && typeof data.details === "string"
        ? data.details
        : undefined;
  const message = detail?.trim()
    ? detail
    : err instanceof Error
      ? err.message
      : record && "message" in record
        ? String(record.message)
        : String(err);
  return textHead(message, 300);
}

async function statQuietly(p: string): Promise<Stats | undefined> {
  return statIfExists(p).catch(() => undefined);
}

/**
 * The editor's fs/read_text_file with its answer checked: one without a string `content` (a client
 * bug) is an error of its own, never taken for text or for the user's refusal.
 */
export function checkedEditorRead(
  read: NonNullable<EditorFiles["readTextFile"]>,
): NonNullable<EditorFiles["readTextFile"]> {
  return async (request, signal) => {
    const answer: unknown = await read(request, signal);
    const content =
      typeof answer === "object" && answer !== null ? (answer as { content?: unknown }).content : undefined;
    if (typeof content !== "string") {
      throw new FileToolError(
        ErrorCode.Internal,
        `The editor's answer to fs/read_text_file for ${request.path} has no text (not {"content": string}); nothing was read`,
      );
    }
    return answer as { content: string };
  };
}

/** The contract's error for a failed fs/read_text_file: what the disk says is wrong, else a refusal. */
export async function editorReadError(err: unknown, p: string): Promise<FileToolError> {
  if (err instanceof FileToolError) return err;
  const st = await statQuietly(p);
  if (!st) return notFound(p);
  if (!st.isFile()) return notAFile(p);
  return refusal(err, p);
}

/** The contract's error for a failed fs/write_text_file: what the disk says is wrong, else a refusal. */
export async function editorWriteError(err: unknown, p: string): Promise<FileToolError> {
  const parent = await statQuietly(path.dirname(p));
  if (!parent?.isDirectory())
    return new FileToolError(ErrorCode.NotFound, `Parent directory not found: ${path.dirname(p)}`);
  const st = await statQuietly(p);
  if (st?.isDirectory()) return isADirectory(p);
  if (st && !st.isFile()) return notAFile(p);
  return refusal(err, p);
}

function refusal(err: unknown, p: string): FileToolError {
  return new FileToolError(ErrorCode.Permission, `Permission denied: ${p} (the editor refused: ${editorReason(err)})`, {
    cause: err,
  });
}
