// Opening and closing a session: the features prepare, the Codex thread is started or resumed,
// the features attach; closing detaches them again. Its own file: the order of those steps, and
// what each failure gives back, is one job, apart from the ACP methods that ask for a session
// (acp-methods.ts, and stored sessions through the agent) and the agent that wires them (agent.ts).
import { stat } from "node:fs/promises";
import path from "node:path";
import { CodexExitedError, type CodexHost } from "../codex/index.js";
import type { Logger } from "../log/index.js";
import { markPhase } from "../log/index.js";
import { withdrawSession, type AgentState } from "./agent-state.js";
import { invalidParams, shown, toRequestError } from "./errors.js";
import {
  mergeResponseParts,
  type AgentServices,
  type SessionFeature,
  type SessionOpening,
  type SessionResponsePart,
} from "./feature-api.js";
import { openThread, type StoredIds } from "./session/open-thread.js";
import type { SessionThreads } from "./session/session-threads.js";
import type { AcpSession, SessionDeps, ThreadSettings } from "./session/session.js";

/** Defaults of a new thread: the `auto` mode (workspace writes, ask before anything else). */
export const DEFAULT_SETTINGS: Omit<ThreadSettings, "cwd"> = {
  approvalPolicy: "on-request",
  sandbox: "workspace-write",
};

export type SessionOpeningOptions = {
  host: CodexHost;
  log: Logger;
  features: SessionFeature[];
  services: AgentServices;
  state: AgentState;
  /** What each session is made with (agent.ts). */
  deps: SessionDeps;
  threads: SessionThreads;
  /** The Codex thread a session runs on (agent.ts). */
  threadOf: (sessionId: string) => Promise<string>;
};

/** The agent's methods of the same names (Agent in agent.ts says what each is for). */
export type SessionOpener = {
  openSession: (
    opening: SessionOpening,
    sessionId?: string,
    admitted?: Promise<void>,
  ) => Promise<{ session: AcpSession; response: SessionResponsePart }>;
  closeSession: (session: AcpSession) => Promise<void>;
  describeSession: (session: AcpSession) => SessionResponsePart;
  sessionDeleted: (sessionId: string) => Promise<void>;
};

export function sessionOpener({
  host,
  log,
  features,
  services,
  state,
  deps,
  threads,
  threadOf,
}: SessionOpeningOptions): SessionOpener {
  /**
   * Opens a session: features amend the settings, the thread is started (new) or
   * resumed (load/resume of the ACP session `sessionId`), then features attach.
   */
  async function openSession(
    opening: SessionOpening,
    sessionId?: string,
    admitted: Promise<void> = Promise.resolve(),
  ): Promise<{ session: AcpSession; response: SessionResponsePart }> {
    admitted.catch(() => undefined); // awaited below, once the features have prepared
    try {
      for (const feature of features) {
        if (!feature.prepare) continue;
        await feature.prepare(opening, services);
        markPhase(log, `prepared: ${feature.name}`);
      }
    } catch (err) {
      // A refused request (a bad directory...): release what the features before it took. A
      // refused admission (the sign-in) is the answer still, as if it had been checked first.
      await abandon(opening);
      await admitted.catch((refusal: unknown) => Promise.reject(toRequestError(refusal)));
      throw toRequestError(err);
    }
    await admitted.catch(async (refusal: unknown) => {
      await abandon(opening);
      throw toRequestError(refusal);
    });
    let ids: StoredIds | undefined;
    let forkThread: string | undefined;
    try {
      ids = sessionId === undefined ? undefined : { sessionId, threadId: await threadOf(sessionId) };
      forkThread = opening.forkOf === undefined ? undefined : await threadOf(opening.forkOf);
    } catch (err) {
      await abandon(opening);
      throw toRequestError(err);
    }
    opening.beforeThread?.();
    let session: AcpSession | undefined;
    // A codex that died (or was found hung and restarted) while the thread was being opened:
    // once more, on a new child.
    for (let attempt = 1; !session; attempt++) {
      try {
        session = await openThread(host, deps, opening, ids, forkThread);
      } catch (err) {
        if (err instanceof CodexExitedError && attempt < 2) {
          log.warn({ reason: err.exit.reason }, "codex exited while opening a session; trying once more on a new one");
          continue;
        }
        await abandon(opening);
        throw toRequestError(err);
      }
    }
    markPhase(log, `thread ${opening.kind === "new" ? "started" : "resumed"}`);
    const previous = state.sessions.get(session.id);
    if (previous) await closeSession(previous);
    state.sessions.set(session.id, session);
    let response: SessionResponsePart;
    try {
      const parts: Array<{ feature: string; part: SessionResponsePart | void }> = [];
      for (const feature of features) {
        if (!feature.attach) continue;
        parts.push({ feature: feature.name, part: await feature.attach(session, opening, services) });
        markPhase(log, `attached: ${feature.name}`);
      }
      response = mergeResponseParts(parts);
    } catch (err) {
      await closeSession(session);
      throw toRequestError(err);
    }
    log.info({ sessionId: session.id, kind: opening.kind }, "session opened");
    return { session, response };
  }

  /** Lets every feature release what its prepare took for an opening that failed. */
  async function abandon(opening: SessionOpening): Promise<void> {
    for (const feature of features) await Promise.resolve(feature.abandon?.(opening, services)).catch(() => undefined);
  }

  /** Closes a session and lets features release what they hold for it. */
  async function closeSession(session: AcpSession): Promise<void> {
    session.close();
    withdrawSession(state.sessions, session);
    for (const feature of features) await feature.detach?.(session, services);
  }

  function describeSession(session: AcpSession): SessionResponsePart {
    return mergeResponseParts(
      features.map((feature) => ({ feature: feature.name, part: feature.describe?.(session) })),
    );
  }

  const sessionDeleted = async (sessionId: string): Promise<void> => {
    await threads.forget(sessionId);
    for (const feature of features) await feature.sessionDeleted?.(sessionId, services);
  };

  return { openSession, closeSession, describeSession, sessionDeleted };
}

/** A session's working directory, as session/new, load, resume and fork take it: absolute, and a directory. */
export async function validateCwd(cwd: string): Promise<string> {
  if (!path.isAbsolute(cwd)) throw invalidParams({ cwd }, `cwd must be an absolute path: ${shown(cwd)}`);
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw invalidParams({ cwd }, `cwd is not an existing directory: ${shown(cwd)}`);
  return path.normalize(cwd);
}
