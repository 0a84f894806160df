// Sessions that last: session/load (resume the Codex thread and replay its history),
// session/list (Codex's thread list: session-list.ts), session/resume (no replay) and session/close.
// An archived session is refused until it is unarchived (archive.ts).
// ACP session id = Codex thread id, so any thread in CODEX_HOME (made by this adapter,
// another adapter process or the Codex CLI itself) can be listed and reopened; a session whose
// thread was replaced (never prompted when its codex stopped: core/session/session-threads.ts) is
// listed and opened under its own id, and a deleted one is found nowhere (deletions.ts).
//
// History comes from paginated `thread/items/list {sortDirection: "asc"}` (`thread/turns/list`
// for legacy threads), read while `thread/resume {excludeTurns: true}` runs and caught up after
// it (history-replay.ts): in codex 0.169 these return complete items, with the command output,
// exit codes and statuses.
import { randomUUID } from "node:crypto";
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AppServerClient, Thread } from "../codex/index.js";
import { HistoryReplay } from "./history-replay.js";
import { clientDisplay, type Agent } from "../core/index.js";
import type { SessionOpening } from "../core/index.js";
import { invalidRequest, sessionNotFound, toRequestError } from "../core/index.js";
import { listSessions } from "./session-list.js";
import { sessionListPageSize } from "../config/index.js";
import { codexClient, isArchived, neverPrompted, readFromCodex, StoredThreads } from "./threads.js";
import { DeletedThreads } from "./deletions.js";
import path from "node:path";
import { codexHomeOf } from "../codex/index.js";

export type LifecycleOptions = {
  /** Sessions per session/list page. */
  listPageSize?: number;
  /** Held while a history streams through (src/startup/young-generation.ts): its pages are young garbage in bulk. */
  youngGeneration?: { widen(): () => void };
  /** Where deleted sessions whose thread Codex keeps are remembered (deletions.ts; default under CODEX_HOME). */
  deletedDir?: string;
};

/** What the stored-session requests share. */
export type StoredSessions = {
  /**
   * What changes which session an id is (load, resume, delete, archive) runs one at a time per id,
   * in the order asked; session/close waits for all of it.
   */
  oneAtATime<T>(sessionId: string, act: () => Promise<T>): Promise<T>;
  /** The stored sessions' threads, by session id. */
  threads: StoredThreads;
};

/** Registers session/load, list, resume and close on the agent and advertises them. */
export function registerLifecycle(agent: Agent, opts: LifecycleOptions = {}): StoredSessions {
  const { host, log } = agent.services;
  const listPageSize = opts.listPageSize ?? sessionListPageSize();

  agent.advertise({
    agentCapabilities: () => ({ loadSession: true }),
    // Extra workspace roots on new, load and resume (src/features/directories.ts).
    sessionCapabilities: () => ({ list: {}, resume: {}, close: {}, additionalDirectories: {} }),
  });

  const client = (): Promise<AppServerClient> => codexClient(host);
  const threads = new StoredThreads(
    host,
    agent,
    new DeletedThreads(opts.deletedDir ?? path.join(codexHomeOf(), "codex-cli-acp", "deleted-sessions")),
  );
  /**
   * Loads, resumes, deletes and archives under way, by session id: a session/close sent meanwhile
   * (an editor tab closed as it opened) waits for them, then closes what they opened, instead of
   * answering "not open" and leaving the session open once the load ends. Each waits for the ones
   * before it: two loads at once would stream their histories to the client interleaved, and a
   * delete during a load would miss the session the load is about to open.
   */
  const opening = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(sessionId: string, act: () => Promise<T>): Promise<T> => {
    // With nothing before it, it starts now: a delete takes the session out of reach of a prompt sent right after it.
    const underWay = opening.get(sessionId);
    const done = underWay ? underWay.then(act) : act();
    const settled = done.catch(() => undefined);
    opening.set(sessionId, settled);
    void settled.then(() => {
      if (opening.get(sessionId) === settled) opening.delete(sessionId);
    });
    return done;
  };

  /** Fails with -32002 unless CODEX_HOME holds the session's thread (and it was not deleted), and refuses an archived one; nothing is created. */
  async function storedThread(sessionId: string): Promise<Thread> {
    const { thread } = await threads.require(sessionId);
    // Codex refuses to resume it (naming its own CLI); ACP has the way back.
    if (isArchived(thread))
      throw invalidRequest(`Session ${sessionId} is archived: unarchive it (session/unarchive) first, then open it`);
    return thread;
  }

  /**
   * Opens a stored thread as a session (load or resume), replacing an open session of the same id
   * once the new one exists.
   * `beforeResume` runs once every feature has accepted the request, right before thread/resume.
   */
  async function reopen(
    kind: "load" | "resume",
    request: acp.LoadSessionRequest | acp.ResumeSessionRequest,
    beforeResume?: (thread: Thread, cwd: string) => void,
  ) {
    const cwd = await agent.validateCwd(request.cwd);
    const thread = await storedThread(request.sessionId);
    // Codex writes a thread's history at its first turn, and cannot resume one without it. A session
    // opened and never prompted is answered as it is open now (nothing to replay), or is not found.
    if (neverPrompted(thread)) {
      const live = agent.state.sessions.get(request.sessionId);
      if (!live)
        throw sessionNotFound(
          request.sessionId,
          `session ${request.sessionId} was never prompted and is no longer open: Codex keeps nothing of it`,
        );
      log.info({ sessionId: live.id, kind }, "session never prompted: answered from the open session");
      return { session: live, response: agent.describeSession(live), live: true };
    }
    // An open session of this id is replaced by openSession once the new one exists: a refused
    // request leaves it as it was.
    const opening: SessionOpening = {
      kind,
      request: { ...request, mcpServers: request.mcpServers ?? [] },
      // No approval policy or sandbox: Codex restores what the thread last ran with (its mode),
      // and the session takes them from thread/resume's answer (src/core/session/open-thread.ts).
      settings: { cwd },
      key: randomUUID(),
      // Already read to check the id exists: the features reuse it instead of reading again.
      storedThread: () => Promise.resolve(thread),
      ...(beforeResume ? { beforeThread: () => beforeResume(thread, cwd) } : {}),
    };
    const { session, response } = await agent.openSession(opening, request.sessionId);
    return { session, response, live: false };
  }

  agent.app
    .onRequest(acp.methods.agent.session.load, ({ params }) =>
      oneAtATime(params.sessionId, async () => {
        // The history streams while Codex resumes the thread (history-replay.ts); the whole of it
        // reaches the client before the load is answered.
        let history: HistoryReplay | undefined;
        let releaseUpdates: (() => void) | undefined;
        const releaseYoungGeneration = opts.youngGeneration?.widen();
        const startHistory = (thread: Thread, cwd: string): void => {
          history = new HistoryReplay({
            threadId: thread.id,
            historyMode: thread.historyMode,
            send: (update) =>
              agent.services
                .client()
                .notify(acp.methods.client.session.update, { sessionId: params.sessionId, update }),
            replay: {
              cwd,
              display: clientDisplay(agent.state.clientCapabilities),
              onSkip: (reason, detail) =>
                log.warn({ sessionId: params.sessionId, reason, detail }, "history entry not replayed"),
            },
            log,
          });
          history.start(client());
          releaseUpdates = agent.holdUpdates(params.sessionId, history.firstPassWritten);
        };
        // Nothing of a failed load reaches the client after its error.
        const abandonHistory = async (): Promise<void> => {
          history?.stop();
          await history?.firstPassWritten;
        };
        try {
          let opened: Awaited<ReturnType<typeof reopen>>;
          try {
            opened = await reopen("load", params, startHistory);
          } catch (err) {
            await abandonHistory();
            throw err;
          }
          const { session, response } = opened;
          if (opened.live) return response; // no turn: no history
          try {
            const replayed = await history!.finish(await client());
            log.info({ sessionId: session.id, ...replayed }, "session history replayed");
          } catch (err) {
            await abandonHistory();
            await agent.closeSession(session);
            throw toRequestError(err);
          }
          return response;
        } finally {
          releaseUpdates?.();
          releaseYoungGeneration?.();
        }
      }),
    )
    .onRequest(acp.methods.agent.session.resume, ({ params }) =>
      oneAtATime(params.sessionId, async () => {
        const { response } = await reopen("resume", params);
        return response;
      }),
    )
    .onRequest(acp.methods.agent.session.list, async ({ params }) =>
      threads.listed(await readFromCodex(host, (codex) => listSessions(codex, params, listPageSize))),
    )
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      await opening.get(params.sessionId);
      const session = agent.sessionOf(params.sessionId);
      const attachedTo = host.currentPid;
      // Closing from here on: a prompt sent meanwhile is refused as for a closed session, not queued
      // behind the running one (it would run a whole turn, tools and all, once that one ended).
      agent.withdrawSession(session);
      if (session.promptRunning) {
        // End the running prompt as cancelled (Codex confirms the interrupt) before letting go.
        await session.cancel();
        const deadline = Date.now() + 1500;
        while (session.promptRunning && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      }
      await agent.closeSession(session);
      // Let Codex unload the thread (its rollout stays on disk for session/load). Not awaited:
      // a hung codex must not hold up the close.
      if (attachedTo !== undefined && host.currentPid === attachedTo) {
        void host
          .client()
          .then((c) => c.call("thread/unsubscribe", { threadId: session.threadId }))
          .catch((err: unknown) => log.debug({ err: String(err), sessionId: session.id }, "thread/unsubscribe failed"));
      }
      log.info({ sessionId: session.id }, "session closed");
      return {};
    });
  return { oneAtATime, threads };
}
