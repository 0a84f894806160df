// The user's Codex configuration for a directory (Codex's config/read), kept per directory while
// the files it is read from stay as they were (src/codex/config-files.ts): a second session in the
// same project opens without asking Codex again (config/read is ~7 ms of a warm session/new, before
// thread/start can go). The first session in the folder the agent was started in (an editor starts
// it in the project's root) takes the answer to the config/read the bin wrote as codex spawned.
import { codexHomeOf, configFingerprint, type v2 } from "../../codex/index.js";
import type { AgentServices } from "../../core/feature-api.js";

/** How many directories' answers are kept (the most recently read ones). */
const KEPT_DIRECTORIES = 32;

export class UserConfigReader {
  private readonly answers = new Map<string, { fingerprint: string; config: Promise<v2.Config | undefined> }>();

  constructor(private readonly codexHome: string = codexHomeOf()) {}

  /** The configuration for `cwd`: kept from an earlier read while its files are unchanged; undefined when this codex cannot say. */
  read(cwd: string, services: AgentServices): Promise<v2.Config | undefined> {
    let fingerprint: string;
    try {
      fingerprint = configFingerprint(cwd, this.codexHome);
    } catch {
      // A file we cannot look at (permissions): ask Codex each time rather than guess.
      return askCodex(cwd, services);
    }
    const kept = this.answers.get(cwd);
    if (kept?.fingerprint === fingerprint) return kept.config;
    // Asked as codex spawned, of these very files: answered by now or soon after its initialize.
    const early = services.host.takePrefetchedConfig?.(cwd, fingerprint);
    if (early) services.log.debug({ cwd }, "configuration from the config/read written as codex spawned");
    const config = early ? early.then((answer) => answer.config, () => askCodex(cwd, services)) : askCodex(cwd, services);
    this.answers.delete(cwd);
    this.answers.set(cwd, { fingerprint, config });
    if (this.answers.size > KEPT_DIRECTORIES) this.answers.delete(this.answers.keys().next().value!);
    // A failed read is not an answer to keep.
    void config.then((c) => {
      if (c === undefined && this.answers.get(cwd)?.config === config) this.answers.delete(cwd);
    });
    return config;
  }
}

async function askCodex(cwd: string, services: AgentServices): Promise<v2.Config | undefined> {
  try {
    return (await (await services.host.client()).call("config/read", { cwd })).config;
  } catch (err) {
    services.log.warn({ err: err instanceof Error ? err.message : String(err) }, "could not read the Codex configuration; the session opens in the default mode");
    return undefined;
  }
}
