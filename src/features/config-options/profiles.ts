// Codex profiles as Codex 0.171 knows them: `codex --profile <name>` layers
// `$CODEX_HOME/<name>.config.toml` over config.toml (a plain name: letters, digits, `-`, `_`),
// under a trusted project's `.codex/config.toml` and `-c` overrides. config.toml's legacy
// `[profiles.<name>]` tables are no longer applied (Codex refuses `--profile <name>` while a table
// of that name is there). The app-server takes no `--profile` and refuses a `profile` selector
// (in config.toml or a thread's config), so a profile is applied as its keys: those a turn carries
// (model, effort, approvals, sandbox, reviewer, speed) as the session's settings, the others as
// the thread's config overrides (dotted keys, as `-c` takes them), each leaf as the layer would
// merge it, less what a layer above it (project, `-c`) sets. Whether Codex takes them is Codex's to
// say: a thread started ephemeral with them, let go at once; a refusal names the profile and the key.
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { CodexRpcError, type JsonValue, type v2 } from "../../codex/index.js";
import { invalidParams, shown, type RequestError } from "../../core/index.js";
import type { AgentServices } from "../../core/index.js";
import type { ThreadSettings } from "../../core/index.js";

/** The option's value for no profile (a profile of that name is not offered). */
export const NO_PROFILE = "none";
/** A profile name as Codex's `--profile` takes it (a longer one is not kept per thread). */
export const PROFILE_NAME = /^[A-Za-z0-9_-]{1,200}$/;
const SUFFIX = ".config.toml";
/** More than any hand-written profile: a bigger file is not read. */
const MAX_PROFILE_BYTES = 1024 * 1024;

/** One profile: its file, and its keys as Codex's dotted config keys (a table's keys one by one). */
export type Profile = { name: string; file: string; keys: Record<string, JsonValue> };

/** The profiles Codex knows for the user: the names of `<codexHome>/<name>.config.toml`, sorted. */
export async function listProfiles(codexHome: string): Promise<string[]> {
  const entries = await readdir(codexHome, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith(SUFFIX))
    .map((e) => e.name.slice(0, -SUFFIX.length))
    .filter((name) => name !== NO_PROFILE && PROFILE_NAME.test(name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** TOML values as JSON (a date as its text: Codex's config has none). */
function jsonOf(value: unknown): JsonValue {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(jsonOf);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonOf(v)]));
  return value as JsonValue;
}

/** A table's keys, one leaf at a time ("a.b.c"), as a layer merges them; a table under a key with a dot in it stays whole. */
function flatten(
  table: Record<string, unknown>,
  prefix: string,
  out: Record<string, JsonValue>,
): Record<string, JsonValue> {
  for (const [key, value] of Object.entries(table)) {
    if (value === null || value === undefined) continue;
    const nested = typeof value === "object" && !Array.isArray(value) && !(value instanceof Date);
    if (nested && !key.includes(".")) flatten(value as Record<string, unknown>, `${prefix}${key}.`, out);
    else out[`${prefix}${key}`] = jsonOf(value);
  }
  return out;
}

const tableSchema = z.record(z.string(), z.unknown());

/** The keys the layers above a profile set (an enabled project layer, `-c` overrides): Codex keeps theirs. */
function keysAbove(answer: v2.ConfigReadResponse | undefined): string[] {
  const above = (answer?.layers ?? []).filter(
    (l) => (l.name.type === "project" || l.name.type === "sessionFlags") && l.disabledReason == null,
  );
  return above.flatMap((l) => {
    const table = tableSchema.safeParse(l.config);
    return table.success ? Object.keys(flatten(table.data, "", {})) : [];
  });
}

const under = (key: string, other: string): boolean =>
  key === other || key.startsWith(`${other}.`) || other.startsWith(`${key}.`);

/**
 * Reads the profile `name` as `codex --profile` would over the configuration `answer` (config/read
 * for the session's folder); a profile Codex would refuse before it looks at its keys (a legacy
 * table of that name, a file that is not TOML) is the client's error.
 */
export async function readProfile(
  codexHome: string,
  name: string,
  answer: v2.ConfigReadResponse | undefined,
): Promise<Profile> {
  const file = path.join(codexHome, `${name}${SUFFIX}`);
  const legacy = tableSchema.safeParse(answer?.config.profiles);
  const selector = answer?.config.profile === name;
  if ((legacy.success && legacy.data[name] !== undefined) || selector) {
    const what = selector ? `profile = "${name}"` : `[profiles.${name}]`;
    throw invalidParams(
      { profile: name, key: selector ? "profile" : `profiles.${name}` },
      `Codex refuses the profile "${name}" while config.toml has the legacy ${what}: move those settings into ${file} and remove it from config.toml.`,
    );
  }
  let text: string;
  try {
    if ((await stat(file)).size > MAX_PROFILE_BYTES) throw new Error(`larger than ${MAX_PROFILE_BYTES} bytes`);
    text = await readFile(file, "utf8");
  } catch (err) {
    throw invalidParams(
      { profile: name, file },
      `Cannot read the profile "${name}" (${file}): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  // Loaded only when a profile is read: most sessions never do.
  const { parse, TomlError } = await import("smol-toml");
  let table: Record<string, unknown>;
  try {
    table = parse(text);
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const reason = err.message.split("\n")[0] ?? "not TOML";
    throw invalidParams(
      { profile: name, file, line: err.line, column: err.column },
      `Codex cannot read the profile "${name}": ${file}, line ${err.line}, column ${err.column}: ${reason}`,
    );
  }
  const above = keysAbove(answer);
  const keys = Object.fromEntries(
    Object.entries(flatten(table, "", {})).filter(([key]) => !above.some((other) => under(key, other))),
  );
  return { name, file, keys };
}

/** The settings a turn carries, by the config key that sets them. */
const TURN_KEYS = {
  model: "model",
  model_reasoning_effort: "effort",
  service_tier: "serviceTier",
  approval_policy: "approvalPolicy",
  sandbox_mode: "sandbox",
  approvals_reviewer: "approvalsReviewer",
} as const satisfies Record<string, keyof ThreadSettings>;

export type TurnField = (typeof TURN_KEYS)[keyof typeof TURN_KEYS];
export type TurnValues = Partial<Pick<ThreadSettings, TurnField>>;

// Codex checks them (checkProfile): only their shape is checked here.
const turnValuesSchema = z.object({
  model: z.string().optional(),
  effort: z.string().optional(),
  serviceTier: z.string().optional(),
  approvalPolicy: z
    .custom<v2.AskForApproval>((v) => typeof v === "string" || (typeof v === "object" && v !== null))
    .optional(),
  sandbox: z.enum(["read-only", "workspace-write", "danger-full-access"]).optional(),
  approvalsReviewer: z.custom<v2.ApprovalsReviewer>((v) => typeof v === "string").optional(),
});

/** What the profile sets of the settings a turn carries. */
export function turnValuesOf(profile: Profile | undefined): TurnValues {
  if (!profile) return {};
  const values: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(TURN_KEYS))
    if (profile.keys[key] !== undefined) values[field] = profile.keys[key];
  const parsed = turnValuesSchema.safeParse(values);
  return parsed.success ? parsed.data : {};
}

/**
 * The profile's keys a thread takes only as it starts or resumes (its config overrides). Its model
 * provider only for a thread that starts: Codex refuses to change a thread's provider on resume,
 * and keeps the one it ran with.
 */
export function threadKeysOf(profile: Profile | undefined, starting: boolean): Record<string, JsonValue> {
  if (!profile) return {};
  return Object.fromEntries(
    Object.entries(profile.keys).filter(([key]) => !(key in TURN_KEYS) && (starting || key !== "model_provider")),
  );
}

/** Starts an ephemeral thread with `config` (Codex's check of it), and lets it go. */
async function tryConfig(
  services: AgentServices,
  cwd: string,
  config: Record<string, JsonValue>,
): Promise<v2.ThreadStartResponse> {
  const client = await services.host.client();
  const started = await client.call("thread/start", { cwd, ephemeral: true, config });
  void client.call("thread/unsubscribe", { threadId: started.thread.id }).catch(() => undefined);
  return started;
}

/** What Codex makes of the profile's keys over the user's configuration; its refusal as the client's error (refusal()). */
export async function checkProfile(
  services: AgentServices,
  cwd: string,
  profile: Profile,
): Promise<v2.ThreadStartResponse> {
  try {
    return await tryConfig(services, cwd, profile.keys);
  } catch (err) {
    if (err instanceof CodexRpcError) throw await refusal(services, cwd, profile, err.message);
    throw err;
  }
}

/**
 * The client's error for a profile Codex refused with `message`, naming the key: the one Codex's
 * message names, or whose value it quotes, else the one Codex refuses alone (asked key by key).
 */
export async function refusal(
  services: AgentServices,
  cwd: string,
  profile: Profile,
  message: string,
): Promise<RequestError> {
  const key = await refusedKey(services, cwd, profile, message);
  const value = key === undefined ? undefined : profile.keys[key];
  const what = key === undefined ? "" : ` its ${key} = ${shown(JSON.stringify(value))}:`;
  return invalidParams(
    { profile: profile.name, file: profile.file, ...(key === undefined ? {} : { key, value }), codex: message },
    `Codex refuses the profile "${profile.name}" (${profile.file}):${what} ${message}`,
  );
}

async function refusedKey(
  services: AgentServices,
  cwd: string,
  profile: Profile,
  message: string,
): Promise<string | undefined> {
  const entries = Object.entries(profile.keys);
  const named = /in `([^`]+)`/.exec(message)?.[1];
  if (named !== undefined && profile.keys[named] !== undefined) return named;
  const quoted = entries.filter(([, value]) => typeof value === "string" && value !== "" && message.includes(value));
  if (quoted.length === 1) return quoted[0]![0];
  if (entries.length === 1) return entries[0]![0];
  for (const [key, value] of entries.slice(0, 40)) {
    try {
      await tryConfig(services, cwd, { [key]: value });
    } catch (err) {
      if (err instanceof CodexRpcError) return key;
      throw err;
    }
  }
  return undefined;
}
