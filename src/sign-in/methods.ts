// Which sign-in methods the editor is offered, and whether Codex can be used now. A terminal
// login or `codex login` writes CODEX_HOME/auth.json from another process, which a running
// app-server never rereads: when that file appears while codex says "not signed in", the child
// is restarted (only when no turn runs) so the new account takes effect without restarting us.
import { statSync } from "node:fs";
import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { accountResponseSchema, type CodexHost } from "../codex/index.js";
import type { Logger } from "../log/index.js";
import { authRequired, toRequestError } from "../core/errors.js";

export const AUTH = {
  apiKey: "openai-api-key",
  browser: "chatgpt",
  deviceCode: "chatgpt-device-code",
  terminal: "codex-login-terminal",
  terminalDeviceCode: "codex-login-terminal-device-code",
  existing: "codex-login",
} as const;

/** Whether a browser can likely be opened here (not over SSH, a display on Linux, NO_BROWSER unset). */
export function browserLikely(env: NodeJS.ProcessEnv = process.env, platform = process.platform): boolean {
  if (env.NO_BROWSER) return false;
  if (env.SSH_CONNECTION || env.SSH_TTY) return false;
  if (platform === "linux") return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  return true;
}

/** The sign-in methods for this client: each only where it can work. */
export function authMethods(caps: acp.ClientCapabilities, env: NodeJS.ProcessEnv = process.env): acp.AuthMethod[] {
  const methods: acp.AuthMethod[] = [
    {
      id: AUTH.apiKey,
      name: "OpenAI API key",
      description: "An API key given by the editor, or OPENAI_API_KEY / CODEX_API_KEY in the agent's environment.",
      _meta: { "api-key": { provider: "openai" } },
    },
  ];
  if (browserLikely(env)) methods.push({ id: AUTH.browser, name: "ChatGPT", description: "Sign in with your ChatGPT account in the browser." });
  if (caps.elicitation?.url) {
    methods.push({ id: AUTH.deviceCode, name: "ChatGPT (device code)", description: "Open a page on any device and enter a one-time code (works over SSH)." });
  }
  if (caps.auth?.terminal) {
    methods.push(
      { type: "terminal", id: AUTH.terminal, name: "Sign in in a terminal", description: "Runs the Codex login bundled with this agent in the editor's terminal.", args: ["login"] },
      {
        type: "terminal",
        id: AUTH.terminalDeviceCode,
        name: "Sign in in a terminal (device code)",
        description: "The same, with a one-time code instead of a browser on this machine (SSH, containers).",
        args: ["login", "--device-auth"],
      },
    );
  }
  methods.push({ id: AUTH.existing, name: "Existing Codex login", description: "Use the account you signed in with `codex login` (ChatGPT or API key)." });
  return methods;
}

/**
 * Whether Codex has a usable account, remembered per codex child until Codex says the account
 * changed (`account/updated`: a login or logout): `session/new` asks it every time, and a read
 * of Codex's account costs 4-16 ms on its critical path.
 */
export class CredentialCheck {
  private known: { generation: number; signedIn: Promise<boolean> } | undefined;

  constructor(
    private readonly host: CodexHost,
    private readonly log: Logger,
  ) {
    // Heard from every codex child, including ones started after a restart.
    host.onNotification((method) => {
      if (method === "account/updated" || method === "account/login/completed") this.forget();
    });
  }

  /** Reads the account now (e.g. right after initialize), so the first session/new finds it known. */
  warm(): void {
    void this.signedIn().catch(() => undefined);
  }

  forget(): void {
    this.known = undefined;
  }

  private signedIn(): Promise<boolean> {
    if (process.env.OPENAI_API_KEY || process.env.CODEX_API_KEY) return Promise.resolve(true);
    const generation = this.host.currentGeneration;
    if (this.known && this.known.generation === generation) return this.known.signedIn;
    const signedIn = (async () => {
      const client = await this.host.client();
      const account = await client.call("account/read", {}, accountResponseSchema).catch(() => undefined);
      return !(account && account.account === null && account.requiresOpenaiAuth);
    })();
    this.known = { generation, signedIn };
    signedIn.catch(() => this.forget());
    return signedIn;
  }

  /**
   * Fails with ACP's auth-required error (naming the methods) when Codex has no usable account,
   * before any model request: without it Codex would accept the session and then retry the model
   * for minutes on the first prompt. An API key in the environment counts. A login another process
   * wrote (CODEX_HOME/auth.json) is read by restarting an idle codex child.
   */
  async require(methods: readonly acp.AuthMethod[], busy: () => boolean): Promise<void> {
    const check = (): Promise<boolean> =>
      this.signedIn().catch((err: unknown) => {
        throw toRequestError(err);
      });
    if (await check()) return;
    const home = this.host.codexHome;
    const written = home ? statSync(path.join(home, "auth.json"), { throwIfNoEntry: false })?.mtimeMs : undefined;
    // Only a login written after this codex started (a stale or unusable file would restart it every time).
    if (written !== undefined && written > (this.host.startedAt ?? Infinity) && !busy()) {
      this.log.info("credentials were written by another process (a terminal login?); restarting codex to use them");
      await this.host.restart("new credentials on disk");
      this.forget();
      if (await check()) return;
    }
    throw authRequired("Sign in to use Codex: pick a sign-in method, run `codex login` in a terminal, or give the agent OPENAI_API_KEY, then try again", {
      authMethods: methods.map((m) => m.id),
    });
  }
}
