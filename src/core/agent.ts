// The ACP agent: handshake, auth, sessions and prompts, mapped onto one shared
// `codex app-server` child: one child serves every session, and each ACP session is one Codex thread.
import { stat } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { CodexExitedError, refusalFor, type CodexHost } from "../codex/index.js";
import { VERSION } from "../config/index.js";
import type { Logger } from "../log/index.js";
import { markPhase } from "../log/index.js";
import { toUserInput } from "./prompt.js";
import type { ClientDisplay } from "../bridge/index.js";
import { randomUUID } from "node:crypto";
import {
  mergeResponseParts,
  type AgentHandle,
  type AgentServices,
  type SessionFeature,
  type SessionOpening,
  type SessionResponsePart,
} from "./feature-api.js";
import type { AcpSession, SessionDeps, ThreadSettings } from "./session/session.js";
import { openThread, type StoredIds } from "./session/open-thread.js";
import { SessionThreads } from "./session/session-threads.js";
import { codexHomeOf } from "../codex/index.js";
import { invalidParams, RequestError, sessionNotFound, shown, toRequestError, withoutSecrets } from "./errors.js";
import { RequestRouter } from "./request-routes.js";
import {
  mergeCapabilities,
  restoreSession,
  withdrawSession,
  type AgentState,
  type CapabilityPart,
  type ReadonlyAgentState,
} from "./agent-state.js";
import { AcpCode, JsonRpcCode } from "../json-rpc/index.js";

export type { AgentState, CapabilityPart, ReadonlyAgentState } from "./agent-state.js";

/** Defaults of a new thread: the `auto` mode (workspace writes, ask before anything else). */
export const DEFAULT_SETTINGS: Omit<ThreadSettings, "cwd"> = {
  approvalPolicy: "on-request",
  sandbox: "workspace-write",
};

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

/** What the core asks of sign-in, which it does not import (the composition root, app.ts, gives it). */
export type SignInGate = {
  /** The sign-in methods offered to this client. */
  methods(caps: acp.ClientCapabilities): acp.AuthMethod[];
  /** After initialize was answered: look at the credentials in the background. */
  warm(): void;
  /** Before a new session: ACP's auth-required error when there are no credentials. */
  require(methods: acp.AuthMethod[], busy: () => boolean): Promise<void>;
  /** A prompt's turn failed because the model provider refused the credentials (HTTP 401). */
  refused?(): void;
  /** A prompt's turn was answered by the model: the credentials work. */
  accepted?(): void;
};

/** No sign-in step (an agent built without one, as in unit tests). */
const NO_SIGN_IN: SignInGate = { methods: () => [], warm: () => undefined, require: async () => undefined };

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

  const initializeMeta: Record<string, unknown> = {};
  const app = acp
    .agent({ name: "codex-cli-acp" })
    .onConnect((connection) => {
      clientContext = connection.client;
    })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      markPhase(log, "initialize received");
      state.clientCapabilities = params.clientCapabilities ?? {};
      host.start();
      log.info({ protocolVersion: params.protocolVersion, client: params.clientInfo?.name }, "initialize");
      // After this answer is written, so warming up never delays it: the answer goes to stdout in
      // this turn's check phase (core/transport/stdout.ts batches with setImmediate), the warm-ups
      // in the next one (measured: their synchronous part, ~2 ms, came before the answer).
      setImmediate(() =>
        setImmediate(() => {
          markPhase(log, "warm-ups started");
          signIn.warm();
          for (const feature of features) feature.initialized?.(services);
        }),
      );
      markPhase(log, "initialize answered");
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: state.agentCapabilities,
        authMethods: signIn.methods(state.clientCapabilities),
        agentInfo: { name: "codex-cli-acp", title: "Codex CLI", version: VERSION },
        ...(Object.keys(initializeMeta).length > 0 ? { _meta: initializeMeta } : {}),
      };
    })
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      markPhase(log, "session/new received");
      const cwd = await validateCwd(params.cwd);
      // Checked while the features prepare the thread (Codex's account and config reads overlap).
      const signedIn = signIn
        .require(signIn.methods(state.clientCapabilities), () =>
          [...state.sessions.values()].some((s) => s.promptRunning),
        )
        .catch(async (refusal: unknown) => {
          // A config.toml codex cannot parse sends it back to its defaults (OpenAI's sign-in): the
          // file is what to fix, and signing in would only lead to the same error after.
          const problem = await host.userConfig.problem(cwd);
          throw problem === undefined
            ? refusal
            : new RequestError(
                JsonRpcCode.InternalError,
                `Codex cannot read its configuration: ${withoutSecrets(problem)}; fix it and try again`,
              );
        });
      const { session, response } = await openSession(
        { kind: "new", request: params, settings: { cwd, ...DEFAULT_SETTINGS }, key: randomUUID() },
        undefined,
        signedIn,
      );
      markPhase(log, "session/new answered");
      return { sessionId: session.id, ...response };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      markPhase(log, "prompt received");
      try {
        // A feature may answer the prompt itself (a slash command); else it goes to the model.
        for (const feature of features) {
          const handled = feature.handlePrompt?.(session, params.prompt, handle);
          if (handled) return await handled;
        }
        if (log.isLevelEnabled("debug")) firstChunkToMark.add(session.id);
        const response = await session.prompt(toUserInput(params.prompt));
        firstChunkToMark.delete(session.id);
        markPhase(log, "prompt answered");
        if (response.stopReason === "end_turn") signIn.accepted?.();
        return promptResponseWithUsage(response);
      } catch (err) {
        firstChunkToMark.delete(session.id);
        throw signInAgainIfRefused(err);
      }
    })
    .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
      const session = state.sessions.get(params.sessionId);
      if (!session) {
        log.warn({ sessionId: params.sessionId }, "cancel for an unknown session; ignored");
        return;
      }
      await session.cancel();
    });

  /**
   * A prompt that failed for want of a sign-in (the provider refused the credentials mid-session)
   * tells sign-in, and names the methods, as session/new's auth-required error does: the client
   * signs in, and the same session goes on.
   */
  const signInAgainIfRefused = (err: unknown): unknown => {
    if (!(err instanceof RequestError) || err.code !== AcpCode.AuthRequired) return err;
    signIn.refused?.();
    const data = typeof err.data === "object" && err.data !== null ? err.data : {};
    return new RequestError(err.code, err.message, {
      ...data,
      authMethods: signIn.methods(state.clientCapabilities).map((m) => m.id),
    });
  };

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
  const handle: AgentHandle = { services, sessionOf, initializeMeta, statusLines };
  for (const feature of features) feature.install?.(app, handle);

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

  const holdUpdates = (sessionId: string, until: Promise<void>): (() => void) => {
    updatesAfter.set(sessionId, until);
    return () => {
      if (updatesAfter.get(sessionId) === until) updatesAfter.delete(sessionId);
    };
  };
  const sessionDeleted = async (sessionId: string): Promise<void> => {
    await threads.forget(sessionId);
    for (const feature of features) await feature.sessionDeleted?.(sessionId, services);
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

async function validateCwd(cwd: string): Promise<string> {
  if (!path.isAbsolute(cwd)) throw invalidParams({ cwd }, `cwd must be an absolute path: ${shown(cwd)}`);
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw invalidParams({ cwd }, `cwd is not an existing directory: ${shown(cwd)}`);
  return path.normalize(cwd);
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

/**
 * `usage` goes to every client: ACP's stable PromptResponse allows the field (it sets no
 * additionalProperties: false), acpx prints it, and a client that does not know it ignores it. The
 * same figures stay in `_meta` for clients that read them there.
 */
function promptResponseWithUsage(response: acp.PromptResponse): acp.PromptResponse {
  const { usage } = response;
  if (!usage) return response;
  return { ...response, _meta: { ...response._meta, "codex-cli-acp/usage": usage } };
}
