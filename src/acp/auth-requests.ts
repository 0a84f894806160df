// `authenticate` and `logout`: the sign-in methods of auth.ts carried out through Codex's
// account API (account/login/start, account/login/completed, account/logout). Browser sign-in
// opens the URL Codex gives with the platform's opener; device code shows its page and code to
// the user through a URL elicitation; terminal methods are run by the editor, never here.
import { spawn } from "node:child_process";
import * as acp from "@agentclientprotocol/sdk";
import { z } from "zod";
import { accountResponseSchema, type AppServerClient } from "../codex/index.js";
import type { Agent } from "./agent.js";
import { AUTH } from "./auth.js";
import { authRequired, invalidParams, toRequestError } from "./errors.js";

/** How long a browser or device-code sign-in may take. */
const LOGIN_TIMEOUT_MS = 10 * 60_000;

const loginCompletedSchema = z.looseObject({ loginId: z.string().nullable(), success: z.boolean(), error: z.string().nullable() });
const apiKeyMetaSchema = z.looseObject({ "api-key": z.looseObject({ apiKey: z.string().min(1) }) });

/** Opens a URL in the user's browser, detached (written by hand: three platform commands). */
function openInBrowser(url: string): void {
  const [cmd, args] = process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
  const child = spawn(cmd, args, { detached: true, stdio: "ignore" });
  child.on("error", () => undefined);
  child.unref();
}

/** Resolves when Codex reports the end of sign-in `loginId`. */
function loginCompleted(client: AppServerClient, loginId: string, signal: AbortSignal): Promise<{ success: boolean; error: string | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(authRequired("The sign-in did not complete within 10 minutes; try again"))), LOGIN_TIMEOUT_MS);
    const stop = client.onNotification((method, params) => {
      if (method !== "account/login/completed") return;
      const done = loginCompletedSchema.safeParse(params);
      if (done.success && (done.data.loginId === loginId || done.data.loginId === null)) finish(() => resolve(done.data));
    });
    const onAbort = (): void => finish(() => reject(authRequired("The sign-in was cancelled")));
    signal.addEventListener("abort", onAbort);
    function finish(then: () => void): void {
      clearTimeout(timer);
      stop();
      signal.removeEventListener("abort", onAbort);
      then();
    }
  });
}

export function registerAuthRequests(agent: Agent): void {
  const { host, log } = agent.services;
  agent.state.agentCapabilities.auth = { ...agent.state.agentCapabilities.auth, logout: {} };

  const client = (): Promise<AppServerClient> =>
    host.client().catch((err: unknown) => {
      throw toRequestError(err);
    });

  async function signIn(c: AppServerClient, methodId: string, requestId: acp.RequestId | undefined, signal: AbortSignal): Promise<void> {
    const started = await c.call("account/login/start", { type: methodId === AUTH.browser ? "chatgpt" : "chatgptDeviceCode" });
    if (started.type === "chatgpt") {
      log.info("browser sign-in started");
      openInBrowser(started.authUrl);
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
      void agent.services
        .client()
        .request(acp.methods.client.elicitation.create, page)
        .then(
          (answer) => {
            if (answer.action !== "accept") void c.call("account/login/cancel", { loginId: started.loginId }).catch(() => undefined);
          },
          (err: unknown) => log.warn({ err: String(err) }, "the client could not show the sign-in page"),
        );
    } else return;
    const done = await loginCompleted(c, started.loginId, signal);
    if (started.type === "chatgptDeviceCode") void agent.services.client().notify(acp.methods.client.elicitation.complete, { elicitationId: started.loginId }).catch(() => undefined);
    if (!done.success) throw authRequired(`Sign-in failed${done.error ? `: ${done.error}` : ""}`);
  }

  agent.app
    .onRequest(acp.methods.agent.authenticate, async ({ params, requestId, signal }) => {
      const c = await client();
      try {
        switch (params.methodId) {
          case AUTH.apiKey: {
            const fromEditor = apiKeyMetaSchema.safeParse(params._meta);
            const apiKey = fromEditor.success ? fromEditor.data["api-key"].apiKey : (process.env.OPENAI_API_KEY ?? process.env.CODEX_API_KEY);
            if (!apiKey) throw authRequired("Give an API key (the editor's api-key field, or OPENAI_API_KEY / CODEX_API_KEY in the agent's environment)");
            await c.call("account/login/start", { type: "apiKey", apiKey });
            break;
          }
          case AUTH.browser:
          case AUTH.deviceCode:
            await signIn(c, params.methodId, requestId, signal);
            break;
          case AUTH.existing: {
            const account = await c.call("account/read", {}, accountResponseSchema);
            if (!account.account && account.requiresOpenaiAuth) throw authRequired("Not signed in: run `codex login` in a terminal, then try again");
            break;
          }
          case AUTH.terminal:
          case AUTH.terminalDeviceCode:
            throw invalidParams({ methodId: params.methodId }, "This method runs in the editor's terminal; it is not passed to authenticate");
          default:
            throw invalidParams({ methodId: params.methodId }, `Unknown auth method: ${params.methodId}`);
        }
      } catch (err) {
        throw toRequestError(err);
      }
      log.info({ methodId: params.methodId }, "signed in");
      return {};
    })
    .onRequest(acp.methods.agent.logout, async () => {
      await signOut(agent);
      return {};
    });
}

/** Signs out of Codex (its stored credentials are removed); the next session/new asks to sign in. */
export async function signOut(agent: Pick<Agent, "services">): Promise<void> {
  try {
    await (await agent.services.host.client()).call("account/logout", undefined);
  } catch (err) {
    throw toRequestError(err);
  }
  agent.services.log.info("signed out");
}
