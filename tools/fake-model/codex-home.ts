// A hermetic CODEX_HOME for running the real codex against the fake model: a fresh directory
// tree with an offline config.toml, a model catalog that knows "fake-model", an empty HOME and a
// TMPDIR that is not a parent of CODEX_HOME.
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { privateCacheDir } from "../../src/config/cache-dir.js";
import { log } from "../../src/log/index.js";
import { defaultCodexPath } from "./codex-path.js";

const execFileAsync = promisify(execFile);

export const FAKE_MODEL_SLUG = "fake-model";
export const FAKE_API_KEY = "fake-key";
/**
 * The fake model as a provider that needs an OpenAI sign-in, as OpenAI's own does (pick it with
 * `-c model_provider="fake_signed_in"`): codex sends the signed-in account's key as the bearer,
 * so a test sees which login a request used, and a refused key (FakeModel.refuseKey) is a 401.
 */
export const FAKE_SIGNED_IN_PROVIDER = "fake_signed_in";

export interface CreateCodexHomeOptions {
  /** The fake model's base URL, e.g. FakeModel.url ("http://127.0.0.1:PORT/v1"). */
  modelUrl: string;
  /** Use this directory as the base (created if missing) instead of a fresh mkdtemp. */
  dir?: string;
  /** config.toml approval_policy (unset by default: what Codex or the adapter chooses). */
  approvalPolicy?: string;
  /** config.toml sandbox_mode (unset by default). */
  sandboxMode?: string;
  /** Top-level config.toml lines (a user's own settings: model_reasoning_effort, ...), written before any table. */
  userConfig?: string;
  /** TOML appended to config.toml verbatim (tables must come after the generated keys, which they do). */
  extraConfig?: string;
  /** The codex binary used to dump the bundled model catalog (default: the installed native binary). */
  codexPath?: string;
  /** Where this user's private cache directory, which keeps the derived catalog, is (default: the temp directory). */
  cacheRoot?: string;
  /**
   * A made-up ChatGPT sign-in (auth.json with unsigned tokens) whose backend is the fake model's
   * server (`chatgpt_base_url`), so account requests such as `account/rateLimits/read` are served
   * by FakeModel.setAccountUsage. Every other proxied request goes to a closed local port.
   */
  chatgptSignIn?: boolean;
  /** The host codex runs on (default: this one): on Windows its temp dir comes from TMP / TEMP. */
  platform?: NodeJS.Platform;
}

export interface CodexHome {
  /** The base directory holding everything below; removed by cleanup(). */
  base: string;
  codexHome: string;
  home: string;
  tmpdir: string;
  configPath: string;
  modelCatalogPath: string;
  /** Environment for the codex child: spread over process.env (OPENAI_API_KEY etc. are blanked). */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** Quote a string as a TOML basic string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The offline config.toml for a fake-model run. */
export function renderConfigToml(opts: {
  modelUrl: string;
  modelCatalogPath: string;
  approvalPolicy?: string;
  sandboxMode?: string;
  userConfig?: string;
  extraConfig?: string;
  chatgptBaseUrl?: string;
}): string {
  const lines = [
    ...(opts.chatgptBaseUrl ? [`chatgpt_base_url = ${tomlString(opts.chatgptBaseUrl)}`] : []),
    `model = ${tomlString(FAKE_MODEL_SLUG)}`,
    `model_provider = "fake"`,
    `model_catalog_json = ${tomlString(opts.modelCatalogPath)}`,
    ...(opts.approvalPolicy ? [`approval_policy = ${tomlString(opts.approvalPolicy)}`] : []),
    `approvals_reviewer = "user"`,
    ...(opts.sandboxMode ? [`sandbox_mode = ${tomlString(opts.sandboxMode)}`] : []),
    `check_for_update_on_startup = false`,
    ...(opts.userConfig ? [opts.userConfig.trimEnd()] : []),
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[features]`,
    `plugins = false`,
    `shell_snapshot = false`,
    ``,
    `[model_providers.fake]`,
    `name = "fake"`,
    `base_url = ${tomlString(opts.modelUrl)}`,
    `env_key = "FAKE_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    `supports_websockets = false`,
    ``,
    `[model_providers.${FAKE_SIGNED_IN_PROVIDER}]`,
    `name = "fake, signed in"`,
    `base_url = ${tomlString(opts.modelUrl)}`,
    `requires_openai_auth = true`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    `supports_websockets = false`,
    ``,
  ];
  if (opts.extraConfig) lines.push(opts.extraConfig.trimEnd(), "");
  return lines.join("\n");
}

// ---- model catalog ---------------------------------------------------------------------------

const CATALOG_FORMAT = "v1";

/** What codex reads as its model list, checked wherever it comes from (codex's stdout, the cache). */
const catalogSchema = z.looseObject({ models: z.array(z.looseObject({ slug: z.string() })).min(1) });
type Catalog = z.infer<typeof catalogSchema>;

/**
 * Writes to `dest` a models.json catalog with a "fake-model" entry (derived from gpt-5.5, or the
 * first bundled entry) plus the bundled entries. Derived once per codex binary/version and kept in
 * this user's private cache directory (`<cacheRoot>/codex-cli-acp-cache-<uid>/fake-model`, the
 * agent's own, owner-checked: codex trusts this file, so one planted in a shared temp folder must
 * never be it); where that directory cannot be trusted, it is derived for `dest` alone.
 */
async function writeFakeModelCatalog(dest: string, codexPath: string, cacheRoot: string | undefined): Promise<void> {
  const stat = await fs.stat(codexPath);
  // The binary's size and mtime stand in for its version (no extra process needed); bump
  // CATALOG_FORMAT when the derivation below changes.
  const key = `${CATALOG_FORMAT}-${stat.size}-${Math.floor(stat.mtimeMs)}`;
  const privateDir = privateCacheDir(cacheRoot);
  const cacheDir = privateDir === undefined ? undefined : path.join(privateDir, "fake-model");
  const cached = cacheDir === undefined ? undefined : path.join(cacheDir, `models-${key}.json`);
  if (cached !== undefined) {
    try {
      const text = await fs.readFile(cached, "utf8");
      if (catalogSchema.parse(JSON.parse(text)).models[0]?.slug === FAKE_MODEL_SLUG) {
        await fs.writeFile(dest, text);
        return;
      }
    } catch {
      // not cached yet (or a torn file): build it
    }
  }
  const text = JSON.stringify(await deriveCatalog(codexPath), null, 2);
  await fs.writeFile(dest, text);
  if (cacheDir === undefined || cached === undefined) {
    log.debug({ cacheRoot }, "fake model catalog not cached: no private cache directory");
    return;
  }
  // Inside a directory only this user can enter, so a plain mkdir suffices.
  await fs.mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const tmp = `${cached}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, cached); // atomic: concurrent workers never see a partial file
  log.debug({ file: cached }, "fake model catalog cached");
}

async function deriveCatalog(codexPath: string): Promise<Catalog> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "cca-models-"));
  try {
    const codexHome = path.join(scratch, "codex-home");
    const home = path.join(scratch, "home");
    await fs.mkdir(codexHome);
    await fs.mkdir(home);
    const isScript = codexPath.endsWith(".js");
    const cmd = isScript ? process.execPath : codexPath;
    const args = [...(isScript ? [codexPath] : []), "debug", "models", "--bundled"];
    const { stdout } = await execFileAsync(cmd, args, {
      // Windows programs need SystemRoot (and cmd.exe / PATHEXT to find anything) even in a minimal environment.
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        CODEX_HOME: codexHome,
        HOME: home,
        ...windowsEssentials(process.env),
      },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 30_000,
    });
    const models = catalogSchema.parse(JSON.parse(stdout)).models.filter((m) => m.slug !== FAKE_MODEL_SLUG);
    const base = models.find((m) => m.slug === "gpt-5.5") ?? models[0];
    if (!base) throw new Error("codex debug models returned no models");
    const fake: Catalog["models"][number] = {
      ...structuredClone(base),
      slug: FAKE_MODEL_SLUG,
      display_name: "Fake Model",
      description: "Scripted offline model (codex-cli-acp tests).",
      supports_search_tool: false,
      prefer_websockets: false,
      upgrade: null,
      availability_nux: null,
    };
    return { models: [fake, ...models] };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

// ---- CODEX_HOME ------------------------------------------------------------------------------

/** auth.json of a ChatGPT sign-in that never happened: unsigned tokens, valid until 2100 (codex reads their claims, checks no signature). */
function fakeChatgptAuth(): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const token = (claims: Record<string, unknown>) =>
    `${part({ alg: "none", typ: "JWT" })}.${part({ exp: 4102444800, ...claims })}.unsigned`;
  const auth = {
    "https://api.openai.com/auth": {
      chatgpt_plan_type: "plus",
      chatgpt_account_id: "fake-account",
      chatgpt_user_id: "fake-user",
    },
  };
  return JSON.stringify({
    auth_mode: "chatgpt",
    OPENAI_API_KEY: null,
    tokens: {
      id_token: token({ email: "fake@example.invalid", ...auth }),
      access_token: token(auth),
      refresh_token: "fake-refresh",
      account_id: "fake-account",
    },
    last_refresh: new Date().toISOString(),
  });
}

/** Create a fresh, hermetic CODEX_HOME pointed at the fake model. */
export async function createCodexHome(opts: CreateCodexHomeOptions): Promise<CodexHome> {
  const base = opts.dir
    ? (await fs.mkdir(opts.dir, { recursive: true }), path.resolve(opts.dir))
    : await fs.mkdtemp(path.join(os.tmpdir(), "cca-"));
  const codexHome = path.join(base, "codex-home");
  const home = path.join(base, "home");
  const tmpdir = path.join(base, "tmp");
  await Promise.all([codexHome, home, tmpdir].map((d) => fs.mkdir(d, { recursive: true })));

  const modelCatalogPath = path.join(codexHome, "models.json");
  await writeFakeModelCatalog(modelCatalogPath, opts.codexPath ?? defaultCodexPath(), opts.cacheRoot);

  const configPath = path.join(codexHome, "config.toml");
  const configOpts: Parameters<typeof renderConfigToml>[0] = { modelUrl: opts.modelUrl, modelCatalogPath };
  if (opts.approvalPolicy !== undefined) configOpts.approvalPolicy = opts.approvalPolicy;
  if (opts.sandboxMode !== undefined) configOpts.sandboxMode = opts.sandboxMode;
  if (opts.userConfig !== undefined) configOpts.userConfig = opts.userConfig;
  if (opts.extraConfig !== undefined) configOpts.extraConfig = opts.extraConfig;
  if (opts.chatgptSignIn) {
    configOpts.chatgptBaseUrl = `${new URL(opts.modelUrl).origin}/backend-api/`;
    await fs.writeFile(path.join(codexHome, "auth.json"), fakeChatgptAuth());
  }
  await fs.writeFile(configPath, renderConfigToml(configOpts));

  const env: Record<string, string> = {
    CODEX_HOME: codexHome,
    HOME: home,
    TMPDIR: tmpdir,
    ...((opts.platform ?? process.platform) === "win32" ? { TMP: tmpdir, TEMP: tmpdir } : {}),
    FAKE_API_KEY,
    // Blank anything that could reach a real account or change codex's behaviour.
    OPENAI_API_KEY: "",
    CODEX_API_KEY: "",
    OPENAI_BASE_URL: "",
    XDG_CONFIG_HOME: path.join(home, ".config"),
    NO_COLOR: "1",
    // A made-up sign-in must never reach a real server: anything not local goes nowhere.
    ...(opts.chatgptSignIn
      ? { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1,localhost" }
      : {}),
  };

  return {
    base,
    codexHome,
    home,
    tmpdir,
    configPath,
    modelCatalogPath,
    env,
    async cleanup() {
      await fs.rm(base, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** The variables a Windows process cannot do without, from `env` (nothing elsewhere). */
function windowsEssentials(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  if (platform !== "win32") return {};
  return Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => /^(SystemRoot|windir|ComSpec|PATHEXT)$/i.test(e[0]) && e[1] !== undefined,
    ),
  );
}
