// The ACP agent: handshake, auth, sessions and prompts, mapped onto one shared
// `codex app-server` child: one child serves every session, and each ACP session is one Codex thread.
// This file wires the agent together (its state, the services and session deps the features and
// sessions are given); the ACP methods it answers are in acp-methods.ts, the opening and closing
// of sessions in session-opening.ts.
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { ClientDisplay } from "../bridge/index.js";
import { codexHomeOf, refusalFor, type CodexHost } from "../codex/index.js";
import type { Logger } from "../log/index.js";
import { markPhase } from "../log/index.js";
import { acpMethods, NO_SIGN_IN, type SignInGate } from "./acp-methods.js";
import {
  mergeCapabilities,
  restoreSession,
  withdrawSession,
  type AgentState,
  type CapabilityPart,
  type ReadonlyAgentState,
} from "./agent-state.js";
import { sessionNotFound } from "./errors.js";
import type { AgentHandle, AgentServices, SessionFeature, SessionOpening, SessionResponsePart } from "./feature-api.js";
import { RequestRouter } from "./request-routes.js";
import { sessionOpener, validateCwd } from "./session-opening.js";
import { SessionThreads } from "./session/session-threads.js";
import type { AcpSession, SessionDeps } from "./session/session.js";

export type { AgentState, CapabilityPart, ReadonlyAgentState } from "./agent-state.js";
export type { SignInGate } from "./acp-methods.js";
export { DEFAULT_SETTINGS } from "./session-opening.js";

export type AgentOptions = {
  host: CodexHost;
  log: Logger;
  /** Session capabilities, in order (the list: sessionFeatures in src/app.ts). */
  features?: SessionFeature[];
  /** Sign-in: the methods offered and the credential check before a session opens (src/sign-in). */
  signIn?: SignInGate;
  /** Where the threads that replaced a session's are kept (session-threads.ts; default under CODEX_HOME). */
  sessionThreadsDir?: string;
};

export type Agent = {
  app: acp.AgentApp;
  /** Read-only outside the core: changed through advertise, withdrawSession and restoreSession. */
  state: ReadonlyAgentState;
  /** Adds to what initialize advertises, as a feature's capability hooks do (stored sessions, sign-in: made after the agent). */
  advertise(part: CapabilityPart): void;
  /** Takes an open session out of reach (a close or delete under way): a prompt sent meanwhile is refused as for a closed session. */
  withdrawSession(session: AcpSession): void;
  /** Puts back a session withdrawSession took out (its delete failed), unless it closed meanwhile or another took its id. */
  restoreSession(session: AcpSession): void;
  services: AgentServices;
  /** `sessionId`: the stored session to load or resume; `admitted`: the opening may go on (session/new's sign-in check, run while the features prepare). */
  openSession(
    opening: SessionOpening,
    sessionId?: string,
    admitted?: Promise<void>,
  ): Promise<{ session: AcpSession; response: SessionResponsePart }>;
  closeSession(session: AcpSession): Promise<void>;
  /** The session was deleted: the features forget what they keep of it. */
  sessionDeleted(sessionId: string): Promise<void>;
  /** Which Codex thread a session runs on, where it is not its own (session-threads.ts). */
  threads: SessionThreads;
  /** The Codex thread a session runs on: the open session's, else as `threads` keeps it. */
  threadOf(sessionId: string): Promise<string>;
  /** The fields a load or resume answer would carry, from the session as it is open now. */
  describeSession(session: AcpSession): SessionResponsePart;
  validateCwd(cwd: string): Promise<string>;
  sessionOf(sessionId: string): AcpSession;
  /**
   * Holds a session's own updates until `until` settles (a load's history, read while Codex
   * resumes the thread, so they follow that history whichever Codex answers first); returns the
   * release, which lets them go unless another hold replaced this one.
   */
  holdUpdates(sessionId: string, until: Promise<void>): () => void;
};

export function createAgent({ host, log, features = [], signIn = NO_SIGN_IN, sessionThreadsDir }: AgentOptions): Agent {
  const state: AgentState = {
    clientCapabilities: {},
    agentCapabilities: {
      loadSession: false,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
    },
    sessions: new Map(),
  };
  /** Sessions whose prompt's first answer chunk is still to be marked (debug level only, log/timings.ts). */
  const firstChunkToMark = new Set<string>();
  /** The holds of holdUpdates, by session. */
  const updatesAfter = new Map<string, Promise<void>>();
  // Two features claiming one Codex request is a mistake to see now, not when Codex first asks.
  const router = new RequestRouter(features);
  // Each feature advertises its own capabilities; none reaches into another's.
  const advertise = (part: CapabilityPart): void => mergeCapabilities(state.agentCapabilities, part);
  for (const feature of features) advertise(feature);
  let clientContext: acp.AgentContext | undefined;
  const services: AgentServices = {
    host,
    log,
    client: () => {
      if (!clientContext) throw new Error("no ACP client is connected");
      return clientContext;
    },
    clientCapabilities: () => state.clientCapabilities,
    sessions: state.sessions,
  };

  const threads = new SessionThreads(
    sessionThreadsDir ?? path.join(codexHomeOf(), "codex-cli-acp", "session-threads"),
    log,
  );
  const threadOf = async (sessionId: string): Promise<string> =>
    state.sessions.get(sessionId)?.threadId ?? (await threads.threadOf(sessionId));
  const deps: SessionDeps = {
    host,
    log,
    threads,
    display: () => clientDisplay(state.clientCapabilities),
    // Every streamed delta passes here: no promise of its own beyond the connection's.
    sendUpdate: (sessionId, update) => {
      if (!clientContext) return Promise.reject(new Error("no client connected"));
      const first =
        firstChunkToMark.size > 0 &&
        update.sessionUpdate === "agent_message_chunk" &&
        firstChunkToMark.delete(sessionId);
      if (first) markPhase(log, "prompt: first chunk mapped");
      const sent = clientContext.notify(acp.methods.client.session.update, { sessionId, update });
      if (first)
        void sent.then(
          () => markPhase(log, "prompt: first chunk queued for stdout"),
          () => undefined,
        );
      return sent;
    },
    updatesHold: (sessionId) => updatesAfter.get(sessionId),
    answerServerRequest: async (session, request, withdrawn) => {
      // The feature that claims the request's route answers it (request-routes.ts).
      const answer = router.answer(session, request, services, withdrawn);
      if (answer !== undefined) return answer;
      // Nobody handles it: refuse in the shape Codex expects rather than leave the turn waiting.
      log.warn({ method: request.method, sessionId: session.id }, "codex request without a handler; refused");
      const refusal = refusalFor(request);
      if (refusal === undefined) throw new Error(`codex-cli-acp cannot answer ${request.method}`);
      return refusal;
    },
  };

  // A running turn waits on codex: its silence then means something (the host's watchdog).
  host.setBusyCheck(() => [...state.sessions.values()].some((s) => s.promptRunning));

  host.onExit((exit, generation) => {
    for (const session of state.sessions.values()) session.childExited(generation, exit.reason);
  });

  const sessionOf = (sessionId: string): AcpSession => {
    const session = state.sessions.get(sessionId);
    if (!session || session.isClosed) {
      throw sessionNotFound(
        sessionId,
        `${sessionId} is not open (it was closed, or never opened in this process; session/load reopens a stored session)`,
      );
    }
    return session;
  };

  const { openSession, closeSession, describeSession, sessionDeleted } = sessionOpener({
    host,
    log,
    features,
    services,
    state,
    deps,
    threads,
    threadOf,
  });

  const statusLines = async (session: AcpSession): Promise<string[]> => {
    const parts = await Promise.all(
      features.map(async (feature) => {
        try {
          return (await feature.statusLines?.(session, services)) ?? [];
        } catch (err) {
          // One feature's part missing costs that part, not the whole /status.
          log.warn(
            { feature: feature.name, err: err instanceof Error ? err.message : String(err) },
            "a feature's status lines failed",
          );
          return [];
        }
      }),
    );
    return parts.flat();
  };
  /** The initialize answer's `_meta`: what features offer there (acp-methods.ts sends it). */
  const initializeMeta: Record<string, unknown> = {};
  const handle: AgentHandle = { services, sessionOf, initializeMeta, statusLines };
  const app = acpMethods({
    host,
    log,
    features,
    signIn,
    state,
    handle,
    openSession,
    connected: (client) => {
      clientContext = client;
    },
    firstChunkToMark,
  });
  for (const feature of features) feature.install?.(app, handle);

  const holdUpdates = (sessionId: string, until: Promise<void>): (() => void) => {
    updatesAfter.set(sessionId, until);
    return () => {
      if (updatesAfter.get(sessionId) === until) updatesAfter.delete(sessionId);
    };
  };
  const withdraw = (session: AcpSession): void => withdrawSession(state.sessions, session);
  const restore = (session: AcpSession): void => restoreSession(state.sessions, session);
  return {
    app,
    state,
    advertise,
    withdrawSession: withdraw,
    restoreSession: restore,
    services,
    openSession,
    closeSession,
    sessionDeleted,
    threads,
    threadOf,
    describeSession,
    validateCwd,
    sessionOf,
    holdUpdates,
  };
}

/** What the client can show, from its capabilities (terminal cards are Zed's `_meta.terminal_output`, output chunks the official adapter's `_meta.terminal_output_delta`). */
export function clientDisplay(caps: acp.ClientCapabilities): ClientDisplay {
  return {
    terminalOutput: caps._meta?.terminal_output === true,
    terminalOutputDelta: caps._meta?.terminal_output_delta === true,
    notices: caps.session?.notices != null,
    compaction: caps.session?.compaction != null,
    planUpdates: caps.plan != null,
  };
}
