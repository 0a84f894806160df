// Which sign-in methods the editor is offered, and which ids `authenticate` accepts: ours, and
// the ids the other Codex adapters advertise, so a client written for one of them works unchanged.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { noBrowserHere } from "./browser.js";

export const AUTH = {
  apiKey: "openai-api-key",
  browser: "chatgpt",
  deviceCode: "chatgpt-device-code",
  terminal: "codex-login-terminal",
  terminalDeviceCode: "codex-login-terminal-device-code",
  existing: "codex-login",
} as const;

/**
 * The sign-in a user can run in a terminal: this agent's own `login` (the Codex bundled with it), as
 * `codex` is often not on PATH (a global install or npx brings only this bin). Writes what `codex
 * login` writes.
 */
export const TERMINAL_LOGIN =
  "`codex-cli-acp login` in a terminal (`npx codex-cli-acp login` without a global install)";

export type AuthMethodId = (typeof AUTH)[keyof typeof AUTH];

/** What an accepted id does: one of our methods, and for an API key the variables it reads, in order. */
export type SignInRoute = { method: AuthMethodId; keyFrom?: readonly string[] };

/** Ours, each as itself. The API key: the editor's, else OPENAI_API_KEY, else CODEX_API_KEY. */
const OWN: Record<string, SignInRoute> = Object.fromEntries(
  Object.values(AUTH).map((method) => [
    method,
    method === AUTH.apiKey ? { method, keyFrom: ["OPENAI_API_KEY", "CODEX_API_KEY"] } : { method },
  ]),
);

/**
 * The ids the other Codex adapters advertise, as our methods (never advertised: a client lists each
 * method once). The official adapter (agentclientprotocol/codex-acp): `api-key` takes the editor's
 * key, else CODEX_API_KEY, else OPENAI_API_KEY; `chat-gpt` the browser; `chat-gpt-device-code` a
 * one-time code. Zed's (zed-industries/codex-acp): `codex-api-key` is CODEX_API_KEY (its
 * `openai-api-key` and `chatgpt` are ours already).
 */
const ALIASES: Record<string, SignInRoute> = {
  "api-key": { method: AUTH.apiKey, keyFrom: ["CODEX_API_KEY", "OPENAI_API_KEY"] },
  "codex-api-key": { method: AUTH.apiKey, keyFrom: ["CODEX_API_KEY"] },
  "chat-gpt": { method: AUTH.browser },
  "chat-gpt-device-code": { method: AUTH.deviceCode },
};

/** What `authenticate` does for this id, or undefined for an id it does not accept. */
export function routeOf(methodId: string): SignInRoute | undefined {
  return Object.hasOwn(OWN, methodId)
    ? OWN[methodId]
    : Object.hasOwn(ALIASES, methodId)
      ? ALIASES[methodId]
      : undefined;
}

/** Every id `authenticate` carries out: ours but the terminal ones (the editor runs those), then the other adapters'. */
export function acceptedMethodIds(): string[] {
  return Object.entries({ ...OWN, ...ALIASES })
    .filter(([, route]) => !runsInTerminal(route.method))
    .map(([id]) => id);
}

/** The terminal methods: the editor runs them (`codex-cli-acp login`), the agent cannot. */
export function runsInTerminal(method: AuthMethodId): boolean {
  return method === AUTH.terminal || method === AUTH.terminalDeviceCode;
}

/** Whether a browser can likely be opened here (not over SSH, a display, NO_BROWSER unset): the browser method is offered then. */
export function browserLikely(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (env.SSH_CONNECTION || env.SSH_TTY) return false;
  return noBrowserHere(env, platform) === undefined;
}

/**
 * The other ways to sign in that work for this client without a browser on this machine, as a
 * sentence's end naming each (the method the user tried, `except`, left out).
 */
export function otherWaysToSignIn(caps: acp.ClientCapabilities, except?: AuthMethodId): string {
  const ways: string[] = [];
  if (caps.elicitation?.url && except !== AUTH.deviceCode)
    ways.push(`the device code (\`${AUTH.deviceCode}\`: a page to open on any device, and a one-time code)`);
  ways.push(
    `an API key (\`${AUTH.apiKey}\`: the editor's, or OPENAI_API_KEY / CODEX_API_KEY in the agent's environment)`,
  );
  ways.push(
    "`codex-cli-acp login --device-auth` in a terminal (`npx codex-cli-acp login --device-auth` without a global install)",
  );
  return `sign in with ${ways.slice(0, -1).join(", ")} or ${ways.at(-1)}`;
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
  if (browserLikely(env))
    methods.push({
      id: AUTH.browser,
      name: "ChatGPT",
      description: "Sign in with your ChatGPT account in the browser.",
    });
  if (caps.elicitation?.url) {
    methods.push({
      id: AUTH.deviceCode,
      name: "ChatGPT (device code)",
      description: "Open a page on any device and enter a one-time code (works over SSH).",
    });
  }
  if (caps.auth?.terminal) {
    methods.push(
      {
        type: "terminal",
        id: AUTH.terminal,
        name: "Sign in in a terminal",
        description: "Runs the Codex login bundled with this agent in the editor's terminal.",
        args: ["login"],
      },
      {
        type: "terminal",
        id: AUTH.terminalDeviceCode,
        name: "Sign in in a terminal (device code)",
        description: "The same, with a one-time code instead of a browser on this machine (SSH, containers).",
        args: ["login", "--device-auth"],
      },
    );
  }
  methods.push({
    id: AUTH.existing,
    name: "Existing Codex login",
    description: "Use the account you signed in with `codex login` (ChatGPT or API key).",
  });
  return methods;
}
