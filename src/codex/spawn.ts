// Spawns `codex app-server` (no shell). Kept free of heavy imports on purpose: the
// bin calls it before loading anything else, so codex boots while the ACP side loads.
// (We use node:child_process rather than execa here: execa's import alone delayed the
// spawn by ~45 ms and cost ~3 MB of RSS, and none of its features are needed for a
// long-lived stdio child; measured with scripts/bench.)
import { spawn, type ChildProcess } from "node:child_process";
import type { CodexCommand } from "./locate.js";

export function spawnAppServer(command: CodexCommand, opts: { args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  return spawn(command.file, [...command.args, "app-server", ...(opts.args ?? [])], {
    stdio: ["pipe", "pipe", "pipe"],
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    windowsHide: true,
    shell: false,
  });
}
