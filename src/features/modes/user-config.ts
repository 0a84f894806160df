// The user's Codex configuration for a directory (Codex's config/read), kept per directory while
// the files it is read from stay as they were: a second session in the same project opens without
// asking Codex again (config/read is ~7 ms of a warm session/new, before thread/start can go).
// What decides it is on disk: the system's and the user's config (with the projects' trust),
// and each `.codex/config.toml` from the directory up (with the `.git` that marks a project's
// root); a change to any of them (its time, size, or being there) reads it again. Settings that
// cannot change while this process runs (codex's `-c` overrides, the environment) are not looked at.
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { v2 } from "../../codex/index.js";
import type { AgentServices } from "../../core/feature-api.js";

/** How many directories' answers are kept (the most recently read ones). */
const KEPT_DIRECTORIES = 32;
const SYSTEM_DIR = "/etc/codex";
const CONFIG_FILES = ["config.toml", "managed_config.toml", "requirements.toml"];

/** The state of the files the configuration of `cwd` is read from: equal strings, same configuration. */
export function configFingerprint(cwd: string, codexHome: string): string {
  const paths = [...CONFIG_FILES.map((f) => path.join(codexHome, f)), ...CONFIG_FILES.map((f) => path.join(SYSTEM_DIR, f))];
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    paths.push(path.join(dir, ".codex", "config.toml"), path.join(dir, ".git"));
    if (path.dirname(dir) === dir) break;
  }
  return paths
    .map((p) => {
      const info = statSync(p, { throwIfNoEntry: false });
      // A project's `.git` counts by being there: its own time moves with every commit.
      return !info ? "-" : p.endsWith(".git") ? "+" : `${info.mtimeMs}:${info.size}`;
    })
    .join("|");
}

export class UserConfigReader {
  private readonly answers = new Map<string, { fingerprint: string; config: Promise<v2.Config | undefined> }>();

  constructor(private readonly codexHome: string = process.env.CODEX_HOME ?? path.join(os.homedir(), ".codex")) {}

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
    const config = askCodex(cwd, services);
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
