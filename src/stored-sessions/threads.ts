// What Codex stores of a session (its thread), as the stored-session requests ask it: read without
// loading it, and whether it is archived or was never prompted. A session is asked of by its ACP
// id: StoredThreads reads the thread it runs on (core/session/session-threads.ts), and knows none
// for a session deleted while Codex keeps its thread for a fork (deletions.ts).
import { existsSync } from "node:fs";
import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import {
  CodexExitedError,
  CodexRpcError,
  threadReadResponseSchema,
  type AppServerClient,
  type CodexHost,
  type Thread,
} from "../codex/index.js";
import type { Agent } from "../core/index.js";
import { sessionNotFound, toRequestError } from "../core/index.js";
import type { DeletedThreads } from "./deletions.js";

/** A stored session's thread: its id (the one sent to Codex) and what Codex stores of it. */
export type StoredThread = { threadId: string; thread: Thread };

/** The stored sessions as the client knows them: by ACP id, deleted ones left out. */
export class StoredThreads {
  constructor(
    private readonly host: CodexHost,
    private readonly agent: Pick<Agent, "threadOf" | "threads">,
    readonly deleted: DeletedThreads,
  ) {}

  /** The Codex thread the session runs on (its own id unless replaced). */
  threadOf(sessionId: string): Promise<string> {
    return this.agent.threadOf(sessionId);
  }

  /** The session's thread as Codex stores it; undefined when Codex knows none, or the session was deleted. */
  async read(sessionId: string): Promise<StoredThread | undefined> {
    const threadId = await this.threadOf(sessionId);
    if (await this.deleted.has(threadId)) return undefined;
    const thread = await readThread(this.host, threadId);
    return thread && { threadId, thread };
  }

  /** The session's thread, or -32002 unless CODEX_HOME holds it and it was not deleted. */
  async require(sessionId: string): Promise<StoredThread> {
    const threadId = await this.threadOf(sessionId);
    if (await this.deleted.has(threadId)) throw sessionNotFound(sessionId, `session ${sessionId} was deleted`);
    const thread = await readThread(this.host, threadId);
    if (!thread) throw sessionNotFound(sessionId, `no Codex thread ${sessionId} in this CODEX_HOME`);
    return { threadId, thread };
  }

  /** A page of Codex's thread list as the client's sessions: deleted ones left out, each under its session's id. */
  async listed(page: acp.ListSessionsResponse): Promise<acp.ListSessionsResponse> {
    const [deleted, sessionOf] = await Promise.all([this.deleted.all(), this.agent.threads.sessionsByThread()]);
    if (deleted.size === 0 && sessionOf.size === 0) return page;
    const sessions = page.sessions
      .filter((s) => !deleted.has(s.sessionId))
      .map((s) => ({ ...s, sessionId: sessionOf.get(s.sessionId) ?? s.sessionId }));
    return { ...page, sessions };
  }
}

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
export async function readThread(host: CodexHost, threadId: string): Promise<Thread | undefined> {
  return readFromCodex(host, async (client) => {
    try {
      return (await client.call("thread/read", { threadId }, threadReadResponseSchema)).thread;
    } catch (err) {
      if (err instanceof CodexRpcError) return undefined;
      throw err;
    }
  });
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
