// Which files Codex's configuration for a directory is read from, and their state: equal
// fingerprints, same configuration. The system's and the user's config (with the projects'
// trust), and each `.codex/config.toml` from the directory up (with the `.git` that marks a
// project's root); a change to any of them (its time, size, or being there) changes it. What cannot
// change while this process runs (codex's `-c` overrides, the environment) is not looked at. Read
// by the bin (the config/read it writes as codex spawns) and by the host's config reader
// (user-config.ts, its answers kept per directory), so both say the same of one state of the files.
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const SYSTEM_DIR = "/etc/codex";
const CONFIG_FILES = ["config.toml", "managed_config.toml", "requirements.toml"];

/** config/read's params for `cwd`: every read (the bin's early one too) asks for the layers (user-config.ts reads them). */
export const configReadParams = (cwd: string): { cwd: string; includeLayers: true } => ({ cwd, includeLayers: true });

/** Codex's home as codex itself finds it: CODEX_HOME, or ~/.codex. */
export function codexHomeOf(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HOME ?? path.join(os.homedir(), ".codex");
}

/** The state of the files the configuration of `cwd` is read from; throws when one cannot be looked at. */
export function configFingerprint(cwd: string, codexHome: string): string {
  const paths = [
    ...CONFIG_FILES.map((f) => path.join(codexHome, f)),
    ...CONFIG_FILES.map((f) => path.join(SYSTEM_DIR, f)),
  ];
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
