// Opens a session's Codex thread: thread/start (new), thread/fork, or thread/resume (load/resume:
// the thread the ACP session runs on, its own id unless replaced: session-threads.ts), and binds
// the session to the child it ran on. What Codex
// says about a thread while it resumes it (its token usage, a question still open from before)
// arrives before the session exists: it is kept and handed to the session once bound, so a loaded
// session's usage is there from the start (it was dropped, now and then, when it came first).
import type { AppServerClient, CodexHost, CodexNotification } from "../../codex/index.js";
import type { SessionOpening } from "../feature-api.js";
import { AcpSession, type SessionDeps, type ThreadSettings } from "./session.js";
import { forkParams, settingsFromThread, threadParams } from "./thread-config.js";

/** A stored session to open: its ACP id, and the Codex thread it runs on. */
export type StoredIds = { sessionId: string; threadId: string };

/** `ids`: the session to resume (load/resume); `forkThread`: the thread a fork copies (opening.forkOf's). */
export async function openThread(
  host: CodexHost,
  deps: SessionDeps,
  opening: SessionOpening,
  ids: StoredIds | undefined,
  forkThread?: string,
): Promise<AcpSession> {
  const client = await host.client();
  const generation = host.currentGeneration;
  if (opening.kind === "new") {
    const started = forkThread
      ? await client.call("thread/fork", { threadId: forkThread, ...forkParams(opening.settings), excludeTurns: true })
      : await client.call("thread/start", threadParams(opening.settings));
    // What the request left to Codex (the user's config.toml for this cwd) is what the thread runs with.
    fillUnset(opening.settings, settingsFromThread(started));
    const session = new AcpSession(started.thread.id, opening.settings, deps);
    if (!forkThread) session.startedEmpty();
    const thread = started.thread;
    opening.storedThread = () => Promise.resolve(thread);
    session.bind(client, generation);
    return session;
  }
  if (!ids) throw new Error("openSession: a session id is required to resume");
  const { sessionId, threadId } = ids;
  const early = heldUntilOpened(client, threadId, deps);
  try {
    const resumed = await client.call("thread/resume", {
      threadId,
      ...threadParams(opening.settings),
      excludeTurns: true,
    });
    // What the request left to Codex comes back as the thread last ran (its mode, plan mode, speed).
    fillUnset(opening.settings, settingsFromThread(resumed));
    const session = new AcpSession(sessionId, opening.settings, deps, threadId);
    if (!opening.storedThread) {
      let read: Promise<unknown> | undefined;
      opening.storedThread = () => (read ??= client.call("thread/read", { threadId }).then((r) => r.thread));
    }
    session.bind(client, generation, early.notifications);
    early.opened(session);
    return session;
  } catch (err) {
    early.opened(undefined);
    throw err;
  }
}

/**
 * Listens to the thread while it resumes: its notifications kept, its requests answered by the
 * session it becomes. Not when a session open here listens to it already (a load of an open
 * session): that one keeps hearing its thread until the new one binds, or for good if the resume
 * fails (a refused load leaves it as it was).
 */
function heldUntilOpened(
  client: AppServerClient,
  threadId: string,
  deps: SessionDeps,
): { notifications: CodexNotification[]; opened(session: AcpSession | undefined): void } {
  const notifications: CodexNotification[] = [];
  if (client.hasThread(threadId)) return { notifications, opened: () => undefined };
  let opened!: (session: AcpSession | undefined) => void;
  const session = new Promise<AcpSession | undefined>((resolve) => (opened = resolve));
  const detach = client.attachThread(threadId, {
    notification: (n) => void notifications.push(n),
    request: async (request, withdrawn) => {
      const to = await session;
      if (!to) throw new Error("the thread could not be resumed");
      return deps.answerServerRequest(to, request, withdrawn);
    },
  });
  return {
    notifications,
    opened: (to) => {
      detach(); // a no-op once the session bound the thread (its listener replaced this one)
      opened(to);
    },
  };
}

/** Sets in `settings` what `from` has and `settings` leaves unset (what the client or a feature chose stays). */
function fillUnset(settings: ThreadSettings, from: Partial<ThreadSettings>): void {
  for (const key of Object.keys(from) as Array<keyof ThreadSettings>) {
    if (settings[key] === undefined) Object.assign(settings, { [key]: from[key] });
  }
}
