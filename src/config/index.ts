// Settings read from the environment, in one place, so --help can list them all.
declare const __CODEX_ACP_VERSION__: string | undefined;

/** Set by the bundler from package.json; "dev" when running from source. */
export const VERSION: string = typeof __CODEX_ACP_VERSION__ === "string" ? __CODEX_ACP_VERSION__ : "0.0.0-dev";

export const ENVIRONMENT = [
  ["CODEX_PATH", "absolute path of the codex binary to run (default: the one installed with this package)"],
  ["CODEX_ACP_CODEX_ARGS", 'extra arguments for `codex app-server`, space-separated (e.g. `-c model="o4-mini"`)'],
  ["CODEX_ACP_LOG_LEVEL", "trace | debug | info | warn | error (default: info)"],
  ["CODEX_ACP_LOG_FILE", "write logs to this file instead of stderr"],
  ["CODEX_ACP_SESSION_LIST_PAGE_SIZE", "sessions per session/list page (default 50)"],
  [
    "CODEX_ACP_HANG_TIMEOUT_MS",
    "codex silent this long while a turn waits on it is probed, restarted if the probe goes unanswered while codex does no work (default 30000; requests: 2 s)",
  ],
  ["CODEX_ACP_REQUEST_TIMEOUT_MS", "longest wait for any answer from codex (default 120000)"],
  [
    "CODEX_ACP_FILE_TOOL_TIMEOUT_SEC",
    "how long Codex waits for one file-tool call, a permission prompt inside it included (default 3600); a call past it writes nothing",
  ],
  [
    "CODEX_ACP_SIGN_IN_TIMEOUT_MS",
    "how long a browser or device-code sign-in may take before it is cancelled with an error (default 600000: 10 minutes)",
  ],
  [
    "OPENAI_API_KEY / CODEX_API_KEY",
    "API key the API-key sign-in methods use (`openai-api-key`, `api-key`, `codex-api-key`)",
  ],
  [
    "DEFAULT_AUTH_REQUEST",
    'an authenticate request as JSON (e.g. {"methodId":"openai-api-key"}) the agent signs in with when a session needs it',
  ],
  ["CODEX_HOME", "Codex's home directory (config.toml, sessions, login); default ~/.codex"],
] as const;

/** What the adapter tells codex it is (app-server's `initialize`). */
export const CODEX_CLIENT_INFO = { name: "codex-cli-acp", title: "Codex CLI ACP adapter", version: VERSION } as const;

export type AdapterConfig = { codexArgs: string[]; hangMs?: number; deadlineMs?: number };

/** How long codex may say nothing while a turn waits on it before it is probed (ms). */
export const DEFAULT_HANG_TIMEOUT_MS = 30_000;
/** The longest wait for any answer from codex (ms). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** Sessions per session/list page. */
export const DEFAULT_SESSION_LIST_PAGE_SIZE = 50;
/** How long a browser or device-code sign-in may take (ms): then it is cancelled, with an error. */
export const DEFAULT_SIGN_IN_TIMEOUT_MS = 10 * 60_000;

export function readConfig(env: NodeJS.ProcessEnv = process.env): AdapterConfig {
  const hangMs = positiveInt(env.CODEX_ACP_HANG_TIMEOUT_MS);
  const deadlineMs = positiveInt(env.CODEX_ACP_REQUEST_TIMEOUT_MS);
  return {
    codexArgs: parseArgs(env.CODEX_ACP_CODEX_ARGS ?? ""),
    ...(hangMs ? { hangMs } : {}),
    ...(deadlineMs ? { deadlineMs } : {}),
  };
}

/** Sessions per session/list page: CODEX_ACP_SESSION_LIST_PAGE_SIZE, or the default. */
export function sessionListPageSize(env: NodeJS.ProcessEnv = process.env): number {
  return positiveInt(env.CODEX_ACP_SESSION_LIST_PAGE_SIZE) ?? DEFAULT_SESSION_LIST_PAGE_SIZE;
}

/** How long a browser or device-code sign-in may take: CODEX_ACP_SIGN_IN_TIMEOUT_MS, or the default. */
export function signInTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveInt(env.CODEX_ACP_SIGN_IN_TIMEOUT_MS) ?? DEFAULT_SIGN_IN_TIMEOUT_MS;
}

export type IgnoredSetting = { variable: string; value: string; using: string };

/**
 * The number settings set to what cannot be used (not a number, zero, negative, a fraction where
 * a whole number is wanted): each is ignored for its default, which the agent warns of once
 * instead of running silently on a value the user did not choose.
 */
export function ignoredSettings(env: NodeJS.ProcessEnv = process.env): IgnoredSetting[] {
  const checks: ReadonlyArray<[variable: string, usable: (raw: string) => boolean, fallback: number]> = [
    ["CODEX_ACP_HANG_TIMEOUT_MS", (raw) => positiveInt(raw) !== undefined, DEFAULT_HANG_TIMEOUT_MS],
    ["CODEX_ACP_REQUEST_TIMEOUT_MS", (raw) => positiveInt(raw) !== undefined, DEFAULT_REQUEST_TIMEOUT_MS],
    ["CODEX_ACP_FILE_TOOL_TIMEOUT_SEC", (raw) => positiveNumber(raw) !== undefined, DEFAULT_FILE_TOOL_TIMEOUT_SEC],
    ["CODEX_ACP_SESSION_LIST_PAGE_SIZE", (raw) => positiveInt(raw) !== undefined, DEFAULT_SESSION_LIST_PAGE_SIZE],
    ["CODEX_ACP_SIGN_IN_TIMEOUT_MS", (raw) => positiveInt(raw) !== undefined, DEFAULT_SIGN_IN_TIMEOUT_MS],
  ];
  return checks.flatMap(([variable, usable, fallback]) => {
    const value = env[variable];
    return value && !usable(value) ? [{ variable, value, using: `the default, ${fallback}` }] : [];
  });
}

/**
 * Codex's deadline for one call of the file tools (its `tool_timeout_sec`, 60 s unless set). A
 * write outside the workspace waits on the user inside the call, and an editor may ask too: an
 * hour fits a human answer; the turn's cancel still ends the call at once.
 */
export const DEFAULT_FILE_TOOL_TIMEOUT_SEC = 3600;

/** The longest deadline taken: a timer past 2^31-1 ms fires at once in Node (~24.8 days). */
const MAX_FILE_TOOL_TIMEOUT_SEC = 2_000_000;

export function fileToolTimeoutSec(env: NodeJS.ProcessEnv = process.env): number {
  const n = positiveNumber(env.CODEX_ACP_FILE_TOOL_TIMEOUT_SEC);
  return n !== undefined ? Math.min(n, MAX_FILE_TOOL_TIMEOUT_SEC) : DEFAULT_FILE_TOOL_TIMEOUT_SEC;
}

/** A positive finite number, or undefined (unset, or anything else). */
function positiveNumber(raw: string | undefined): number | undefined {
  const n = Number(raw);
  return raw && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** The longest delay a Node timer takes (ms); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A whole number up to MAX_TIMER_MS, or undefined (unset, or anything else: a larger timeout would fire at once). */
function positiveInt(raw: string | undefined): number | undefined {
  const n = Number(raw);
  return raw && Number.isInteger(n) && n > 0 && n <= MAX_TIMER_MS ? n : undefined;
}

/**
 * Splits CODEX_ACP_CODEX_ARGS into argv: a JSON array of strings as is, otherwise words
 * separated by spaces where '...' and "..." group and are removed, as a shell does (so
 * `-c developer_instructions="be terse"` stays one argument; codex reads a -c value that
 * is not TOML as a plain string).
 * Written by hand: a dozen lines, and no shell is ever involved in running codex.
 */
export function parseArgs(raw: string): string[] {
  const text = raw.trim();
  if (!text) return [];
  if (text.startsWith("[")) {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === "string")) {
      throw new Error("CODEX_ACP_CODEX_ARGS: a JSON value must be an array of strings");
    }
    return parsed;
  }
  const args: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      current ??= "";
    } else if (/\s/.test(ch)) {
      if (current !== undefined) args.push(current);
      current = undefined;
    } else current = (current ?? "") + ch;
  }
  if (quote) throw new Error(`CODEX_ACP_CODEX_ARGS: unbalanced ${quote}`);
  if (current !== undefined) args.push(current);
  return args;
}
export { privateCacheDir } from "./cache-dir.js";
