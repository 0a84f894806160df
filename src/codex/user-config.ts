// The user's Codex configuration for a directory (Codex's config/read, with its layers), kept per
// directory while the files it is read from stay as they were (config-files.ts): a second session
// in the same project opens without asking Codex again (config/read is ~7 ms of a warm session/new,
// before thread/start can go). The first session in the folder the agent was started in (an editor
// starts it in the project's root) takes the answer to the config/read the bin wrote as codex
// spawned. One reader per host, shared: the modes feature reads the approvals and sandbox from it,
// the file tools whether the user turned Codex's hooks off.
import type { Logger } from "../log/index.js";
import type { AppServerClient } from "./client.js";
import { codexHomeOf, configFingerprint, configReadParams } from "./config-files.js";
import type * as v2 from "./generated/v2/index.js";
import { CodexRpcError } from "./errors.js";

/** How many directories' answers are kept (the most recently read ones). */
const KEPT_DIRECTORIES = 32;

/** Where the reader gets answers: codex, and the bin's early config/read (CodexHost). */
export type ConfigSource = {
  client(): Promise<AppServerClient>;
  takePrefetchedConfig?(cwd: string, fingerprint: string): Promise<v2.ConfigReadResponse> | undefined;
};

/** Sets `key` as the newest entry of `map`, dropping the oldest past KEPT_DIRECTORIES. */
function keepNewest<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > KEPT_DIRECTORIES) map.delete(map.keys().next().value!);
}

export class UserConfigReader {
  private readonly answers = new Map<
    string,
    { fingerprint: string; answer: Promise<v2.ConfigReadResponse | undefined> }
  >();
  /** Codex's error for each folder whose configuration it could not read (the newest KEPT_DIRECTORIES). */
  private readonly problems = new Map<string, string>();

  constructor(
    private readonly source: ConfigSource,
    private readonly log: Pick<Logger, "warn" | "debug">,
    private readonly codexHome: string = codexHomeOf(),
  ) {}

  /** The configuration for `cwd`: kept from an earlier read while its files are unchanged; undefined when this codex cannot say. */
  read(cwd: string): Promise<v2.ConfigReadResponse | undefined> {
    let fingerprint: string;
    try {
      fingerprint = configFingerprint(cwd, this.codexHome);
    } catch {
      // A file we cannot look at (permissions): ask Codex each time rather than guess.
      return this.askCodex(cwd);
    }
    const kept = this.answers.get(cwd);
    if (kept?.fingerprint === fingerprint) return kept.answer;
    // Asked as codex spawned, of these very files: answered by now or soon after its initialize.
    const early = this.source.takePrefetchedConfig?.(cwd, fingerprint);
    if (early) this.log.debug({ cwd }, "configuration from the config/read written as codex spawned");
    const answer = early ? early.catch(() => this.askCodex(cwd)) : this.askCodex(cwd);
    keepNewest(this.answers, cwd, { fingerprint, answer });
    // A failed read is not an answer to keep.
    void answer.then((a) => {
      if (a === undefined && this.answers.get(cwd)?.answer === answer) this.answers.delete(cwd);
    });
    return answer;
  }

  /**
   * Why codex could not read the configuration for `cwd` (a config.toml it cannot parse: its path,
   * line and column), or undefined when it could, or could not say.
   */
  async problem(cwd: string): Promise<string | undefined> {
    if ((await this.read(cwd)) !== undefined) return undefined;
    return this.problems.get(cwd);
  }

  private async askCodex(cwd: string): Promise<v2.ConfigReadResponse | undefined> {
    try {
      const answer = await (await this.source.client()).call("config/read", configReadParams(cwd));
      this.problems.delete(cwd);
      return answer;
    } catch (err) {
      // Codex's own answer (not a codex gone): what is wrong with the files.
      if (err instanceof CodexRpcError) {
        keepNewest(this.problems, cwd, err.message);
      }
      this.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        "could not read the Codex configuration; the session opens in the default mode",
      );
      return undefined;
    }
  }
}

/**
 * Whether the user's own configuration turns Codex's hooks off (`[features] hooks = false` in a
 * layer of theirs: config.toml, its profile, the system's or a managed one, `-c`). A project's
 * `.codex/config.toml` is not theirs: codex 0.169 lets even an untrusted project's turn hooks off.
 */
export function userTurnsHooksOff(answer: v2.ConfigReadResponse | undefined): boolean {
  return (answer?.layers ?? []).some(
    (layer) => layer.name.type !== "project" && layer.disabledReason == null && hooksSetting(layer.config) === false,
  );
}

function hooksSetting(config: unknown): unknown {
  if (typeof config !== "object" || config === null) return undefined;
  const features = (config as { features?: unknown }).features;
  return typeof features === "object" && features !== null ? (features as { hooks?: unknown }).hooks : undefined;
}
