// Settings read from the environment, in one place, so --help can list them all.
declare const __CODEX_ACP_VERSION__: string | undefined;

/** Set by the bundler from package.json; "dev" when running from source. */
export const VERSION: string = typeof __CODEX_ACP_VERSION__ === "string" ? __CODEX_ACP_VERSION__ : "0.0.0-dev";

export const ENVIRONMENT = [
  ["CODEX_PATH", "absolute path of the codex binary to run (default: the one installed with this package)"],
  ["CODEX_ACP_CODEX_ARGS", "extra arguments for `codex app-server`, space-separated (e.g. `-c model=\"o4-mini\"`)"],
  ["CODEX_ACP_LOG_LEVEL", "trace | debug | info | warn | error (default: info)"],
  ["CODEX_ACP_LOG_FILE", "write logs to this file instead of stderr"],
  ["CODEX_ACP_SESSION_LIST_PAGE_SIZE", "sessions per session/list page (default 50)"],
  ["OPENAI_API_KEY / CODEX_API_KEY", "API key used by the `openai-api-key` auth method"],
  ["CODEX_HOME", "Codex's home directory (config.toml, sessions, login); default ~/.codex"],
] as const;

export type AdapterConfig = { codexArgs: string[] };

export function readConfig(env: NodeJS.ProcessEnv = process.env): AdapterConfig {
  const raw = env.CODEX_ACP_CODEX_ARGS?.trim();
  return { codexArgs: raw ? raw.split(/\s+/) : [] };
}
