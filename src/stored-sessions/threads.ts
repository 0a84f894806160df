// What Codex stores of a session (its thread), as the stored-session requests ask it: read without
// loading it, and whether it is archived or was never prompted.
import { existsSync } from "node:fs";
import path from "node:path";
import { CodexExitedError, CodexRpcError, threadReadResponseSchema, type AppServerClient, type CodexHost, type Thread } from "../codex/index.js";
import { sessionNotFound, toRequestError } from "../core/errors.js";

/** The codex client, its start failure as the client's error. */
export async function codexClient(host: CodexHost): Promise<AppServerClient> {
  try {
    return await host.client();
  } catch (err) {
    throw toRequestError(err);
  }
}

/**
 * Runs a read of what Codex stores on the live codex, and once more on a new one when that child
 * died or was found hung meanwhile (a codex stopped while idle is found only by the request that
 * waits on it). A read is safe to ask again; session/new's thread/start is retried the same way.
 */
export async function readFromCodex<T>(host: CodexHost, read: (client: AppServerClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await codexClient(host);
    try {
      return await read(client);
    } catch (err) {
      if (err instanceof CodexExitedError && attempt < 2) continue;
      throw toRequestError(err);
    }
  }
}

/** The thread as Codex stores it, or undefined when Codex knows no thread of that id (thread/read loads nothing). */
export async function readThread(host: CodexHost, sessionId: string): Promise<Thread | undefined> {
  return readFromCodex(host, async (client) => {
    try {
      return (await client.call("thread/read", { threadId: sessionId }, threadReadResponseSchema)).thread;
    } catch (err) {
      if (err instanceof CodexRpcError) return undefined;
      throw err;
    }
  });
}

/** The thread, or -32002 unless CODEX_HOME holds it. */
export async function requireThread(host: CodexHost, sessionId: string): Promise<Thread> {
  const thread = await readThread(host, sessionId);
  if (!thread) throw sessionNotFound(sessionId, `no Codex thread ${sessionId} in this CODEX_HOME`);
  return thread;
}

/**
 * Codex writes a thread's history (its rollout) at its first turn: before that it keeps nothing on
 * disk, and once no process has it open the thread is gone (it cannot be resumed or archived).
 */
export function neverPrompted(thread: Thread): boolean {
  return thread.path != null && !existsSync(thread.path);
}

/**
 * Archived: Codex moved its rollout to `$CODEX_HOME/archived_sessions/` (thread/archive; the
 * thread has no flag saying so in 0.169). Codex refuses to resume it until it is unarchived.
 */
export function isArchived(thread: Thread): boolean {
  return thread.path != null && path.basename(path.dirname(thread.path)) === "archived_sessions";
}
