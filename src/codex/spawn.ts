// Spawns `codex app-server` (no shell). Kept free of heavy imports on purpose: the
// bin calls it before loading anything else, so codex boots while the ACP side loads.
// (We use node:child_process rather than execa here: execa's import alone delayed the
// spawn by ~45 ms and cost ~3 MB of RSS, and none of its features are needed for a
// long-lived stdio child; measured with scripts/bench.)
import { spawn, type ChildProcess } from "node:child_process";
import { batchFileLaunch, type Launch } from "../platform/index.js";
import type { CodexCommand } from "./locate.js";

/**
 * How to run `command` with `args`: the file itself, or for a Windows batch file cmd.exe with
 * every argument escaped (src/platform/windows-command.ts; throws for an argument cmd.exe cannot
 * carry). Every start of codex goes through here: app-server, `debug models`, `login`.
 */
export function codexLaunch(command: CodexCommand, args: readonly string[], env: NodeJS.ProcessEnv): Launch {
  const all = [...command.args, ...args];
  if (!command.batch) return { file: command.file, args: all };
  // Windows names variables case-insensitively; a copied environment is a plain object.
  const comspec = Object.entries(env).find(([name]) => name.toLowerCase() === "comspec")?.[1];
  return batchFileLaunch(command.file, all, comspec || "cmd.exe");
}

/** Node's spawn options for `launch`: verbatim arguments only for cmd.exe's line. */
export function launchOptions(launch: Launch): { windowsVerbatimArguments?: boolean } {
  return launch.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {};
}

export function spawnAppServer(command: CodexCommand, opts: { args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  const env = opts.env ?? process.env;
  const launch = codexLaunch(command, ["app-server", ...(opts.args ?? [])], env);
  return spawn(launch.file, launch.args, {
    stdio: ["pipe", "pipe", "pipe"],
    env,
    cwd: opts.cwd,
    windowsHide: true,
    shell: false,
    ...launchOptions(launch),
  });
}
