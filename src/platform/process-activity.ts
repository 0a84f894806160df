// What a child process is doing, as far as the host tells: on Linux /proc/<pid>/stat gives its
// state (stopped or not) and the CPU time all its threads used, enough to tell a codex working
// on a long request from one that is stopped or deadlocked. macOS and Windows have no /proc
// (their equivalents need native calls): there nothing is known, and callers decide without it.
import { readFileSync } from "node:fs";
import type { Platform } from "./paths.js";

/** What the host says of a process at one moment. */
export type ProcessActivity = {
  /** Stopped (SIGSTOP, a debugger's stop) or gone (a zombie): it will not answer, whatever its CPU time says. */
  readonly stopped: boolean;
  /** User + system CPU time of all its threads, in clock ticks (1/100 s on Linux). */
  readonly cpuTicks: number;
};

/** Reads a small text file whole; undefined when it cannot be read (the process is gone, no /proc). */
export type ProcFileReader = (file: string) => string | undefined;

const readProcFile: ProcFileReader = (file) => {
  try {
    return readFileSync(file, "latin1");
  } catch {
    return undefined;
  }
};

/**
 * The state and CPU time of process `pid`, or undefined where the host does not tell (not
 * Linux, no /proc, a line it cannot read). `read` is replaceable so every branch runs in tests.
 */
export function processActivity(
  pid: number,
  platform: Platform = process.platform,
  read: ProcFileReader = readProcFile,
): ProcessActivity | undefined {
  if (platform !== "linux") return undefined;
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields start after the last ")".
  const fields = stat
    .slice(stat.lastIndexOf(")") + 1)
    .trim()
    .split(/\s+/);
  // Counted from the state (field 3 of proc(5)): utime is field 14, stime field 15.
  const state = fields[0];
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (state === undefined || !/^[A-Za-z]$/.test(state) || !Number.isFinite(utime) || !Number.isFinite(stime))
    return undefined;
  // T: stopped by a signal; t: stopped by a tracer; Z, X: exited, not yet reaped (or dead).
  return { stopped: "TtZX".includes(state), cpuTicks: utime + stime };
}
