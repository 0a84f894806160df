// Stopping a child process on each host. POSIX: the signal asked for (SIGTERM lets codex clean
// up, SIGKILL does not wait). Windows has neither signals nor process groups: Node's kill() is
// TerminateProcess on that one process, which leaves what it started running (the Node launcher's
// codex.exe, cmd.exe's child for a .cmd CODEX_PATH, codex's own commands and MCP servers), still
// holding the pipes. There `taskkill /T /F` ends the whole tree, and kill() is the fallback when
// taskkill cannot run.
import { spawn } from "node:child_process";
import type { Platform } from "./paths.js";

/** What can be stopped: a ChildProcess, or anything with its pid and kill(). */
export type StoppableProcess = { readonly pid?: number | undefined; kill(signal?: NodeJS.Signals): boolean };

/** Runs `taskkill` with `args`; calls `done(ok)` once it has exited (ok: exit code 0). */
export type TaskkillRunner = (args: readonly string[], done: (ok: boolean) => void) => void;

/** Stops `child` (and, on Windows, everything it started). */
export type ProcessStopper = (child: StoppableProcess, signal: NodeJS.Signals) => void;

const runTaskkill: TaskkillRunner = (args, done) => {
  let reported = false;
  const report = (ok: boolean): void => {
    if (!reported) done(ok);
    reported = true;
  };
  try {
    const tk = spawn("taskkill", [...args], { stdio: "ignore", windowsHide: true, shell: false });
    tk.once("error", () => report(false));
    tk.once("exit", (code) => report(code === 0));
  } catch {
    report(false);
  }
};

/** The stopper of `platform`; `taskkill` is replaceable so the Windows branch runs in tests anywhere. */
export function processStopper(
  platform: Platform = process.platform,
  taskkill: TaskkillRunner = runTaskkill,
): ProcessStopper {
  if (platform !== "win32") return (child, signal) => void child.kill(signal);
  return (child, signal) => {
    const pid = child.pid;
    if (pid === undefined) return void child.kill(signal); // never started: nothing of its own to end
    taskkill(["/pid", String(pid), "/T", "/F"], (ok) => {
      // Gone already (taskkill then fails too), or taskkill missing: end at least the process itself.
      if (!ok) child.kill(signal);
    });
  };
}
