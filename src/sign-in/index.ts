// Sign-in as the composition root puts it together: the gate the core asks before a session
// opens (methods, credentials, DEFAULT_AUTH_REQUEST), and the requests (authenticate, logout,
// auth/status) registered on the agent once it exists.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { CodexHost } from "../codex/index.js";
import { signInTimeoutMs } from "../config/index.js";
import type { Agent, SignInGate } from "../core/index.js";
import { authRequired, toRequestError } from "../core/index.js";
import type { Logger } from "../log/index.js";
import { CredentialCheck } from "./credentials.js";
import { DEFAULT_AUTH_REQUEST, readDefaultAuthRequest } from "./default-request.js";
import { authMethods, TERMINAL_LOGIN } from "./methods.js";
import { createAuthenticate, registerAuthRequests, type Authenticate } from "./requests.js";
import { registerAuthStatus } from "./status.js";

export type SignIn = {
  gate: SignInGate;
  /** Registers authenticate, logout and auth/status on the agent (made with `gate`). */
  register(agent: Agent): void;
};

export function createSignIn(host: CodexHost, log: Logger, env: NodeJS.ProcessEnv = process.env): SignIn {
  const credentials = new CredentialCheck(host, log);
  const byDefault = readDefaultAuthRequest(env);
  if (byDefault?.usable === false)
    log.error(
      { problem: byDefault.problem },
      `${DEFAULT_AUTH_REQUEST} is set but cannot be used: ${byDefault.problem}`,
    );
  if (byDefault?.usable)
    log.info({ methodId: byDefault.request.methodId }, `${DEFAULT_AUTH_REQUEST}: signs in when a session needs it`);
  let authenticate: Authenticate | undefined;
  /** The sign-in DEFAULT_AUTH_REQUEST runs (sessions opened together share it). */
  let signingInByDefault: Promise<void> | undefined;

  const needed = (methods: acp.AuthMethod[], message: string) =>
    authRequired(message, { authMethods: methods.map((m) => m.id) });

  async function signInByDefault(methods: acp.AuthMethod[]): Promise<void> {
    if (!byDefault) return;
    if (!byDefault.usable)
      throw needed(
        methods,
        `${DEFAULT_AUTH_REQUEST} is set but cannot be used: ${byDefault.problem}. Fix it, or sign in with one of the methods`,
      );
    if (!authenticate) throw new Error("sign-in requests are not registered");
    const { request } = byDefault;
    const run = authenticate;
    signingInByDefault ??= (async () => {
      log.info({ methodId: request.methodId }, `signing in with ${DEFAULT_AUTH_REQUEST}`);
      await run(request, undefined, new AbortController().signal);
    })().finally(() => (signingInByDefault = undefined));
    try {
      await signingInByDefault;
    } catch (err) {
      throw needed(
        methods,
        `Signing in with ${DEFAULT_AUTH_REQUEST} (${request.methodId}) failed: ${toRequestError(err).message}`,
      );
    }
  }

  const gate: SignInGate = {
    methods: (caps) => authMethods(caps, env),
    warm: () => credentials.warm(),
    /**
     * ACP's auth-required error (naming the methods) when Codex has no usable account, before any
     * model request: without it Codex would accept the session and then fail or retry the model
     * on the first prompt. A login another process wrote is picked up; DEFAULT_AUTH_REQUEST signs in.
     */
    async require(methods, busy) {
      try {
        if (await credentials.ready(busy)) return;
        await signInByDefault(methods);
        if (byDefault && (await credentials.ready(busy))) return;
      } catch (err) {
        throw toRequestError(err);
      }
      throw needed(methods, `Sign in to use Codex: pick a sign-in method or run ${TERMINAL_LOGIN}, then try again`);
    },
    refused: () => credentials.refused(),
    accepted: () => credentials.accepted(),
  };

  return {
    gate,
    register(agent) {
      authenticate = createAuthenticate(agent, credentials, { env, timeoutMs: signInTimeoutMs(env) });
      registerAuthRequests(agent, authenticate);
      registerAuthStatus(agent, credentials);
    },
  };
}
