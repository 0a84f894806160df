// Which Codex thread an ACP session runs on: the one place that maps a session's id to it. A
// session's id is the id of the thread it opened with, and stays its id for the client and for
// every feature (mode memory, titles...); what is sent to Codex names the thread it runs on now.
// The two differ only when Codex could not bring a thread back: a thread never prompted has
// nothing on disk (Codex writes its rollout at its first turn), so once its codex stopped it cannot
// be resumed, and the session goes on in a new thread started with its settings (reattachThread).
// That replacement is kept here and beside Codex's threads ($CODEX_HOME/codex-cli-acp/
// session-threads/<session id>, holding the thread's id), so session/list and a later load, in this
// agent or the next, know the session by its id. Best effort on disk: a store that cannot be
// written costs the next agent the session (this one keeps the replacement in memory).
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { CodexRpcError, type AppServerClient, type v2 } from "../../codex/index.js";
import type { Logger } from "../../log/index.js";
import { threadParams, type ThreadSettings } from "./thread-config.js";

/** Codex's thread ids (UUIDs): anything else could name another place, and is never a file name here. */
const THREAD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export class SessionThreads {
  /** Replacements made or read by this agent, session id -> thread id. */
  private readonly known = new Map<string, string>();

  constructor(
    private readonly dir: string,
    private readonly log: Pick<Logger, "warn" | "info">,
  ) {}

  /** The Codex thread a session runs on: its own id unless its thread was replaced. */
  async threadOf(sessionId: string): Promise<string> {
    const known = this.known.get(sessionId);
    if (known !== undefined || !THREAD_ID.test(sessionId)) return known ?? sessionId;
    const stored = await readFile(path.join(this.dir, sessionId), "utf8").then(
      (t) => t.trim(),
      () => "",
    );
    return THREAD_ID.test(stored) ? stored : sessionId;
  }

  /** The session each replacement thread belongs to (thread id -> session id): every other thread is its own session. */
  async sessionsByThread(): Promise<Map<string, string>> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const stored = await Promise.all(
      names
        .filter((n) => THREAD_ID.test(n))
        .map(async (sessionId) => [sessionId, await this.threadOf(sessionId)] as const),
    );
    const byThread = new Map<string, string>();
    for (const [sessionId, threadId] of [...stored, ...this.known])
      if (threadId !== sessionId) byThread.set(threadId, sessionId);
    return byThread;
  }

  /** The session now runs on `threadId`. */
  async replaced(sessionId: string, threadId: string): Promise<void> {
    this.known.set(sessionId, threadId);
    if (!THREAD_ID.test(sessionId) || !THREAD_ID.test(threadId)) return;
    const file = path.join(this.dir, sessionId);
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      // Whole or not at all: a reader never sees half an id.
      await writeFile(temporary, `${threadId}\n`, { mode: 0o600 });
      await rename(temporary, file);
    } catch (err) {
      await rm(temporary, { force: true });
      this.log.warn(
        { sessionId, threadId, err: err instanceof Error ? err.message : String(err) },
        "could not keep which thread the session runs on; another agent will not find it",
      );
    }
  }

  /** The session was deleted: nothing maps it any more. */
  async forget(sessionId: string): Promise<void> {
    this.known.delete(sessionId);
    if (THREAD_ID.test(sessionId)) await rm(path.join(this.dir, sessionId), { force: true }).catch(() => undefined);
  }
}

/** What reattachThread needs of the session. */
export type Reattaching = { id: string; threadId: string; settings: ThreadSettings; keptByCodex: boolean };

/**
 * Loads the session's thread on a new codex child, and returns the id of the thread it now runs
 * on: thread/resume, or, when Codex has nothing of a thread never prompted (it cannot resume it),
 * a new thread with the session's settings, kept in `threads` as the session's.
 */
export async function reattachThread(
  client: AppServerClient,
  session: Reattaching,
  threads: SessionThreads | undefined,
  log: Logger,
): Promise<string> {
  try {
    await client.call("thread/resume", {
      threadId: session.threadId,
      ...threadParams(session.settings),
      excludeTurns: true,
    });
    return session.threadId;
  } catch (err) {
    // A thread Codex has a history of is not replaced: its error is the prompt's.
    if (session.keptByCodex || !(err instanceof CodexRpcError)) throw err;
    const started = await client.call("thread/start", threadParams(session.settings));
    log.info(
      { sessionId: session.id, threadId: started.thread.id, reason: err.message },
      "the session's thread was never prompted and its codex stopped: it goes on in a new thread",
    );
    await threads?.replaced(session.id, started.thread.id);
    return started.thread.id;
  }
}

/**
 * Starts a session's thread anew with `settings`, in place of one Codex keeps nothing of yet (never
 * prompted): what only thread/start takes (a profile's model provider) applies from its first
 * turn. The new thread is kept in `threads` as the session's; the old one is let go.
 */
export async function startThreadAnew(
  client: AppServerClient,
  session: Reattaching,
  threads: SessionThreads | undefined,
  log: Logger,
): Promise<v2.ThreadStartResponse> {
  const started = await client.call("thread/start", threadParams(session.settings));
  await threads?.replaced(session.id, started.thread.id);
  void client.call("thread/unsubscribe", { threadId: session.threadId }).catch(() => undefined);
  log.info(
    { sessionId: session.id, threadId: started.thread.id },
    "the session's thread, never prompted, started anew with its new settings",
  );
  return started;
}
