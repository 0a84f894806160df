// `authenticate` and `logout`: the sign-in methods of methods.ts (and the other adapters' ids for
// them) carried out through Codex's account API (account/login/start, account/login/completed,
// account/logout). Browser sign-in opens the URL Codex gives with the platform's opener; device
// code shows its page and code to the user through a URL elicitation; terminal methods are run by
// the editor, never here.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { AppServerClient } from "../codex/index.js";
import type { Agent } from "../core/index.js";
import type { Logger } from "../log/index.js";
import { noBrowserHere, openInBrowser } from "./browser.js";
import {
  acceptedMethodIds,
  AUTH,
  authMethods,
  otherWaysToSignIn,
  routeOf,
  runsInTerminal,
  TERMINAL_LOGIN,
  type SignInRoute,
} from "./methods.js";
import type { CredentialCheck } from "./credentials.js";
import { signOut } from "../core/index.js";
import { authRequired, invalidParams, invalidRequest, shown, toRequestError, withoutSecrets } from "../core/index.js";

const loginCompletedSchema = z.looseObject({
  loginId: z.string().nullable(),
  success: z.boolean(),
  error: z.string().nullable(),
});
const apiKeyMetaSchema = z.looseObject({ "api-key": z.looseObject({ apiKey: z.string().min(1) }) });

/** What bounds a sign-in: the time it may take, the opener's failure (a browser sign-in), and what to say instead. */
type LoginBounds = { timeoutMs: number; openerFailed?: Promise<string>; otherWays: string; log: Logger };

/** A duration as a person reads it: "10 minutes", "1.5 s". */
export function spokenDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return ms === 60_000 ? "1 minute" : `${ms / 60_000} minutes`;
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * Why a sign-in Codex ended without success failed, as the user can act on it. Codex's browser
 * sign-in runs a login server on a fixed local port, and a codex starting another one on this
 * machine (another editor's agent, a terminal's `codex login`) cancels it to take the port: ours
 * never asked for that cancel (its own cancel answers the client first), so "Login cancelled"
 * reaching here is that.
 */
function loginFailure(error: string | null, otherWays: string): string {
  if (error && /login cancelled/i.test(error))
    return `Sign-in failed: another Codex sign-in on this machine took over its local login server (${error}); finish that one, or try again, or ${otherWays}`;
  return `Sign-in failed${error ? `: ${error}` : ""}`;
}

/** Ends Codex's sign-in `loginId` (and the local server it runs for a browser sign-in), and logs Codex's answer. */
function cancelLogin(client: AppServerClient, loginId: string, log: Logger, why: string): void {
  client.call("account/login/cancel", { loginId }).then(
    (answer) => log.info({ why, status: answer.status }, "Codex's sign-in cancelled"),
    (err: unknown) => log.debug({ why, err: String(err) }, "Codex's sign-in could not be cancelled (codex stopped?)"),
  );
}

/**
 * Resolves when Codex reports the end of sign-in `loginId`; a cancel, the time limit, the opener
 * failing or codex exiting end the wait (and Codex's login, which would otherwise keep its local
 * server running): the client is never left waiting on a sign-in nobody can finish.
 */
function loginCompleted(
  client: AppServerClient,
  loginId: string,
  signal: AbortSignal,
  bounds: LoginBounds,
): Promise<{ success: boolean; error: string | null }> {
  return new Promise((resolve, reject) => {
    const giveUp = (why: string, message: string) => () => {
      cancelLogin(client, loginId, bounds.log, why);
      reject(authRequired(message));
    };
    const cancelled = giveUp("cancelled by the client", "The sign-in was cancelled");
    if (signal.aborted) return cancelled();
    const limit = spokenDuration(bounds.timeoutMs);
    const timer = setTimeout(
      () =>
        finish(
          giveUp(
            "time limit",
            `The sign-in did not complete within ${limit} (CODEX_ACP_SIGN_IN_TIMEOUT_MS) and was cancelled: try again, or ${bounds.otherWays}`,
          ),
        ),
      bounds.timeoutMs,
    );
    void bounds.openerFailed?.then((what) =>
      finish(giveUp("no browser", `Could not open a browser for the sign-in (${what}): ${bounds.otherWays}`)),
    );
    void client.exited.then(() => finish(() => reject(authRequired("Codex stopped during the sign-in; try again"))));
    const stop = client.onNotification((method, params) => {
      if (method !== "account/login/completed") return;
      const done = loginCompletedSchema.safeParse(params);
      if (done.success && (done.data.loginId === loginId || done.data.loginId === null))
        finish(() => resolve(done.data));
    });
    const onAbort = (): void => finish(cancelled);
    signal.addEventListener("abort", onAbort);
    let done = false;
    function finish(then: () => void): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stop();
      signal.removeEventListener("abort", onAbort);
      then();
    }
  });
}

/** Signs in as an authenticate request asks (`requestId`: the request a device-code page belongs to). */
export type Authenticate = (
  params: acp.AuthenticateRequest,
  requestId: acp.RequestId | undefined,
  signal: AbortSignal,
) => Promise<void>;

/** The agent's environment (API keys, the display) and how long a browser or device-code sign-in may take. */
export type AuthenticateOptions = { env: NodeJS.ProcessEnv; timeoutMs: number };

export function createAuthenticate(
  agent: Agent,
  credentials: CredentialCheck,
  { env, timeoutMs }: AuthenticateOptions,
): Authenticate {
  const { host, log } = agent.services;
  const busy = (): boolean => [...agent.state.sessions.values()].some((s) => s.promptRunning);

  async function signIn(
    c: AppServerClient,
    method: SignInRoute["method"],
    requestId: acp.RequestId | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    // Codex's answer is checked by the client (its generated LoginAccountResponse): a "chatgpt" one
    // has its authUrl and loginId, a device-code one its verificationUrl, userCode and loginId.
    const asked = method === AUTH.browser ? "chatgpt" : "chatgptDeviceCode";
    const started = await c.call("account/login/start", { type: asked });
    let openerFailed: Promise<string> | undefined;
    if (started.type === "chatgpt") {
      openerFailed = openInBrowser(started.authUrl);
      if (!openerFailed) {
        cancelLogin(c, started.loginId, log, "not https");
        throw authRequired("Codex gave a sign-in address that is not https; not opened");
      }
      log.info("browser sign-in started");
    } else if (started.type === "chatgptDeviceCode") {
      log.info("device-code sign-in started");
      // Shown to the user by the client; the sign-in goes on whatever the user clicks, until done or declined.
      const page: acp.CreateElicitationRequest = {
        mode: "url",
        requestId: requestId ?? null,
        elicitationId: started.loginId,
        url: started.verificationUrl,
        message: `Sign in to ChatGPT: open ${started.verificationUrl} and enter the code ${started.userCode}`,
      };
      // Declined, or not shown at all (the user would never see the code): the login ends.
      void agent.services
        .client()
        .request(acp.methods.client.elicitation.create, page, { cancellationSignal: signal })
        .then(
          (answer) => answer.action === "accept",
          (err: unknown) => {
            log.warn({ err: String(err) }, "the client could not show the sign-in page");
            return false;
          },
        )
        .then((shown) => {
          if (!shown) cancelLogin(c, started.loginId, log, "the page was not shown");
        });
    } else {
      // Another kind of sign-in (a newer Codex's, or none started): nothing to wait for; saying
      // "signed in" would be a lie.
      throw authRequired(
        `Codex answered the ${asked} sign-in with a ${started.type} one; try again, or sign in with ${TERMINAL_LOGIN}`,
      );
    }
    try {
      const otherWays = otherWaysToSignIn(agent.services.clientCapabilities(), method);
      const done = await loginCompleted(c, started.loginId, signal, {
        timeoutMs,
        otherWays,
        log,
        ...(openerFailed ? { openerFailed } : {}),
      });
      if (!done.success) throw authRequired(loginFailure(done.error, otherWays));
    } finally {
      if (started.type === "chatgptDeviceCode")
        void agent.services
          .client()
          .notify(acp.methods.client.elicitation.complete, { elicitationId: started.loginId })
          .catch(() => undefined);
    }
  }

  /** The API key: the editor's, else the first of the route's variables that is set. */
  function apiKeyOf(params: acp.AuthenticateRequest, route: SignInRoute): string {
    const fromEditor = apiKeyMetaSchema.safeParse(params._meta);
    if (fromEditor.success) return fromEditor.data["api-key"].apiKey;
    const names = route.keyFrom ?? [];
    const fromEnv = names.map((name) => env[name]?.trim()).find((value) => value);
    if (!fromEnv)
      throw authRequired(
        `Give an API key: the editor's api-key field, or ${names.join(" / ")} in the agent's environment (not set)`,
      );
    return fromEnv;
  }

  return async (params, requestId, signal) => {
    const route = routeOf(params.methodId);
    if (!route) {
      const accepted = acceptedMethodIds();
      throw invalidParams(
        { methodId: params.methodId, accepted },
        `Unknown auth method: ${shown(params.methodId)}; this agent accepts ${accepted.join(", ")}`,
      );
    }
    if (runsInTerminal(route.method))
      throw invalidParams(
        { methodId: params.methodId },
        "This method runs in the editor's terminal; it is not passed to authenticate",
      );
    // Without a page to show, the user would never see the code (and Codex would be asked for one for nothing).
    if (route.method === AUTH.deviceCode && !agent.services.clientCapabilities().elicitation?.url) {
      throw invalidRequest(
        "The device-code sign-in shows its page through URL elicitation, which this client does not declare; pick another method",
      );
    }
    // Nobody could finish it (agent-shell asks for it right after initialize, offered or not): said at once, with what works here.
    const noBrowser = route.method === AUTH.browser ? noBrowserHere(env) : undefined;
    if (noBrowser) {
      const caps = agent.services.clientCapabilities();
      const others = authMethods(caps, env).filter((m) => m.id !== AUTH.browser);
      log.info({ methodId: params.methodId, why: noBrowser }, "browser sign-in refused: no browser here");
      throw authRequired(
        `No browser can be opened for the ChatGPT sign-in: ${noBrowser}. Instead, ${otherWaysToSignIn(caps, AUTH.browser)}`,
        {
          authMethods: others.map((m) => m.id),
        },
      );
    }
    try {
      const c = await host.client();
      switch (route.method) {
        case AUTH.apiKey:
          await c.call("account/login/start", { type: "apiKey", apiKey: apiKeyOf(params, route) });
          break;
        case AUTH.browser:
        case AUTH.deviceCode:
          await signIn(c, route.method, requestId, signal);
          break;
        case AUTH.existing:
          if (!(await credentials.ready(busy))) {
            const { refused } = await credentials.state();
            throw authRequired(
              refused
                ? `The model provider refused the current login (it expired or was revoked): sign in again, with another method or ${TERMINAL_LOGIN}`
                : `Not signed in: run ${TERMINAL_LOGIN}, then try again`,
            );
          }
          break;
      }
    } catch (err) {
      const refusal = toRequestError(err);
      log.info({ methodId: params.methodId, err: withoutSecrets(refusal.message) }, "sign-in did not complete");
      throw refusal;
    }
    // Known at once (Codex's own notification follows): a refusal before this sign-in is over.
    credentials.signedInOrOut();
    log.info({ methodId: params.methodId }, "signed in");
  };
}

export function registerAuthRequests(agent: Agent, authenticate: Authenticate): void {
  agent.advertise({ agentCapabilities: () => ({ auth: { logout: {} } }) });
  agent.app
    .onRequest(acp.methods.agent.authenticate, async ({ params, requestId, signal }) => {
      await authenticate(params, requestId, signal);
      return {};
    })
    .onRequest(acp.methods.agent.logout, async () => {
      await signOut(agent.services);
      return {};
    });
}
