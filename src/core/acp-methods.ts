// The ACP methods the core answers itself: initialize, session/new, session/prompt and
// session/cancel (the features install the rest on the same app). Its own file: turning a request
// into the agent's work and its answer (capabilities, sign-in's errors, a prompt's usage) is one
// job, apart from opening sessions (session-opening.ts) and the wiring of the agent (agent.ts).
import { randomUUID } from "node:crypto";
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { CodexHost } from "../codex/index.js";
import { VERSION } from "../config/index.js";
import { AcpCode, JsonRpcCode } from "../json-rpc/index.js";
import type { Logger } from "../log/index.js";
import { markPhase } from "../log/index.js";
import type { AgentState } from "./agent-state.js";
import { RequestError, withoutSecrets } from "./errors.js";
import type { AgentHandle, SessionFeature } from "./feature-api.js";
import { toUserInput } from "./prompt.js";
import { DEFAULT_SETTINGS, validateCwd, type SessionOpener } from "./session-opening.js";

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
export const NO_SIGN_IN: SignInGate = { methods: () => [], warm: () => undefined, require: async () => undefined };

export type AcpMethodsOptions = {
  host: CodexHost;
  log: Logger;
  features: SessionFeature[];
  signIn: SignInGate;
  state: AgentState;
  /** What a feature that answers a prompt itself is given; its initializeMeta goes into initialize's answer. */
  handle: AgentHandle;
  openSession: SessionOpener["openSession"];
  /** The ACP client, once one connects. */
  connected: (client: acp.AgentContext) => void;
  /** Sessions whose prompt's first answer chunk is still to be marked (debug level only, log/timings.ts). */
  firstChunkToMark: Set<string>;
};

/** The agent's ACP app, answering the core's own methods. */
export function acpMethods({
  host,
  log,
  features,
  signIn,
  state,
  handle,
  openSession,
  connected,
  firstChunkToMark,
}: AcpMethodsOptions): acp.AgentApp {
  const { services, initializeMeta } = handle;
  const app = acp
    .agent({ name: "codex-cli-acp" })
    .onConnect((connection) => {
      connected(connection.client);
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
      const session = handle.sessionOf(params.sessionId);
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

  return app;
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
