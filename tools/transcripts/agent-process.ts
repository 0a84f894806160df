// How the runner starts the agent it records or replays: execa, no shell, nothing buffered (the
// bytes flow through its pipes). Its result never rejects (`reject: false`): the exit is read
// from the process events. execa's cleanup stops the agent if the runner exits — except an agent
// in a group of its own (execa leaves detached processes alone): replay stops that group itself,
// on every path out of a run.
import { execa } from "execa";
import { processStopper, type ProcessStopper, type StoppableProcess } from "../../src/platform/index.js";

export type AgentProcessOptions = {
  cwd?: string | undefined;
  env: NodeJS.ProcessEnv;
  /**
   * A process group of its own (POSIX), so signalling the group stops what the agent started
   * too (a launcher's child, an adapter's codex): none of them keeps the pipes open after it.
   */
  ownGroup?: boolean;
};

export function startAgentProcess(command: readonly string[], opts: AgentProcessOptions) {
  const [cmd, ...args] = command;
  if (!cmd) throw new Error("empty agent command");
  return execa(cmd, args, {
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    env: opts.env,
    extendEnv: false,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    cleanup: true,
    detached: opts.ownGroup === true && process.platform !== "win32",
  });
}

/**
 * Stops a replayed agent and what it started. POSIX: `signal` to its process group (ownGroup).
 * Windows has no groups: its whole process tree ends (taskkill /T /F, src/platform/processes.ts),
 * so an adapter's codex does not outlive the run holding the pipes.
 */
export function stopAgentProcess(
  child: StoppableProcess,
  signal: NodeJS.Signals,
  platform: NodeJS.Platform = process.platform,
  stop: ProcessStopper = processStopper(platform),
): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (platform === "win32") return stop(child, signal);
  try {
    process.kill(-pid, signal);
  } catch {
    child.kill(signal);
  }
}
