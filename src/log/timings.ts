// Phase marks of start-up and of a prompt (issue 30): one debug log line per phase,
// `{"timing": <phase>, "atMs": <ms since this process started>}`, which `npm run bench` collects
// into a timeline of where the user's wait goes. Off (one level check) unless the log level is
// debug. Node's own clock origin is this process's start, so `atMs` needs no start mark of ours;
// marks made before the logger is loaded go into Node's user-timing buffer (performance.mark)
// and are logged, with their own times, once it is.
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";

/** The prefix of the start-up marks kept in Node's buffer until the logger exists. */
const EARLY = "codex-cli-acp:";

/** Logs that `phase` is reached now (debug level only). */
export function markPhase(log: Logger, phase: string, fields?: Record<string, unknown>): void {
  if (!log.isLevelEnabled("debug")) return;
  log.debug({ timing: phase, atMs: roundMs(performance.now()), ...fields }, "timing");
}

/** Remembers that `phase` is reached now, before any logger is loaded (see logEarlyPhases). */
export function markEarlyPhase(phase: string): void {
  performance.mark(`${EARLY}${phase}`);
}

/**
 * Logs the marks of markEarlyPhase with the times they were made, and this process's clock
 * origin (ms since the epoch: a reader with its own clock places the process's start on it);
 * then forgets them.
 */
export function logEarlyPhases(log: Logger): void {
  const marks = performance.getEntriesByType("mark").filter((m) => m.name.startsWith(EARLY));
  for (const m of marks) performance.clearMarks(m.name);
  if (!log.isLevelEnabled("debug")) return;
  log.debug({ timing: "process start", atMs: 0, timeOrigin: performance.timeOrigin }, "timing");
  for (const m of marks) log.debug({ timing: m.name.slice(EARLY.length), atMs: roundMs(m.startTime) }, "timing");
}

const roundMs = (ms: number): number => Math.round(ms * 10) / 10;
