// Telling a busy codex from a hung one. When codex has been silent too long, the host asks it a
// cheap question (the probe). Unanswered within a window, codex is hung only if it also does no
// work: on Linux, when it is stopped or its CPU time did not advance over the window; a codex
// whose CPU time advances is working (a session/new with 20,000 MCP servers kept it silent for
// seconds) and is given another window, up to MAX_BUSY_MS. Where the host cannot tell (macOS,
// Windows: no /proc), the wait grows with the size of the requests codex has not answered yet.
import { processActivity, type ProcessActivity } from "../../platform/index.js";

/** The longest codex may work without answering the probe before it is treated as hung (ms). */
export const MAX_BUSY_MS = 10 * 60_000;
/** Without a view of codex's work: one more second of waiting per this many bytes of requests it has not answered. */
const BYTES_PER_GRACE_SECOND = 32 * 1024;

export type SilenceVerdict = { hung: boolean; why: string };

/** What is known when the probe went unanswered for `rounds` windows of `windowMs`. */
export type UnansweredProbe = {
  /** Codex at the start of the last window, and now; undefined where the host does not tell. */
  before: ProcessActivity | undefined;
  now: ProcessActivity | undefined;
  rounds: number;
  windowMs: number;
  /** Bytes of the requests codex has not answered (the work sent it). */
  pendingBytes: number;
  maxBusyMs?: number;
  /** Windows in a row, this one included, in which its CPU time did not advance (with /proc). */
  idleWindows?: number;
};

/**
 * Windows in a row without CPU time before a codex that is not stopped counts as hung: on a
 * machine busier than its cores, a working codex can wait a whole window for a CPU (a CI run beside
 * another killed one mid-turn); a deadlocked one stays idle window after window.
 */
export const IDLE_WINDOWS = 2;

/** The extra wait (ms) for `bytes` of unanswered requests, where codex's work cannot be seen. */
export function workGraceMs(bytes: number, maxBusyMs = MAX_BUSY_MS): number {
  return Math.min(maxBusyMs, Math.floor(bytes / BYTES_PER_GRACE_SECOND) * 1000);
}

/** Whether a codex that did not answer the probe is hung (to be replaced) or still working. */
export function judgeUnansweredProbe(p: UnansweredProbe): SilenceVerdict {
  const maxBusyMs = p.maxBusyMs ?? MAX_BUSY_MS;
  if (p.now?.stopped) return { hung: true, why: "it is stopped" };
  const waitedMs = p.rounds * p.windowMs;
  if (waitedMs >= maxBusyMs) return { hung: true, why: `it answered nothing for ${Math.round(waitedMs / 1000)} s` };
  if (p.before && p.now) {
    const used = p.now.cpuTicks - p.before.cpuTicks;
    if (used > 0) return { hung: false, why: `it is working (${used * 10} ms of CPU time in ${p.windowMs} ms)` };
    return (p.idleWindows ?? IDLE_WINDOWS) >= IDLE_WINDOWS
      ? { hung: true, why: "it used no CPU time meanwhile" }
      : { hung: false, why: "it used no CPU time in one window (it may be waiting for a CPU)" };
  }
  const graceMs = workGraceMs(p.pendingBytes, maxBusyMs);
  return (p.rounds - 1) * p.windowMs < graceMs
    ? {
        hung: false,
        why: `it may still be working on ${Math.round(p.pendingBytes / 1024)} KB of requests (given ${Math.round(graceMs / 1000)} s more)`,
      }
    : { hung: true, why: "it did not answer a cheap request" };
}

/** What the probe needs of the client. */
export type ProbedCodex = {
  readonly alive: boolean;
  readonly pid: number | undefined;
  readonly silentForMs: number;
  readonly pendingBytes: number;
  request(method: string, params: unknown, schema: undefined, timeoutMs: number): Promise<unknown>;
};

export type ProbeOptions = {
  /** How long one window lasts: the probe unanswered that long is judged (ms). */
  windowMs: number;
  maxBusyMs?: number;
  /** What the host says of a process (replaceable in tests). */
  activity?: (pid: number) => ProcessActivity | undefined;
  /** Called once, when codex is first found working rather than hung. */
  onBusy?: (why: string) => void;
};

/**
 * Asks `codex` a cheap question and waits for the answer one window at a time: answered, gone,
 * or speaking meanwhile, it is not hung; otherwise each window is judged (judgeUnansweredProbe).
 */
export async function probeCodex(codex: ProbedCodex, opts: ProbeOptions): Promise<SilenceVerdict> {
  const maxBusyMs = opts.maxBusyMs ?? MAX_BUSY_MS;
  const activity = opts.activity ?? ((pid: number) => processActivity(pid));
  const sample = (): ProcessActivity | undefined => (codex.pid === undefined ? undefined : activity(codex.pid));
  let outcome: "answered" | "failed" | undefined;
  const answer = codex.request("thread/loaded/list", { limit: 1 }, undefined, maxBusyMs + opts.windowMs).then(
    () => void (outcome = "answered"),
    () => void (outcome = "failed"),
  );
  let before = sample();
  let busySaid = false;
  let idleWindows = 0;
  for (let rounds = 1; ; rounds++) {
    const windowStart = Date.now();
    await Promise.race([answer, new Promise((resolve) => setTimeout(resolve, opts.windowMs).unref())]);
    if (!codex.alive) return { hung: false, why: "it exited" };
    if (outcome === "answered") return { hung: false, why: "it answered" };
    // Alive, and the probe past its own deadline (MAX_BUSY_MS and a window).
    if (outcome === "failed") return { hung: true, why: `it answered nothing for ${Math.round(maxBusyMs / 1000)} s` };
    const now = sample();
    idleWindows = before && now && now.cpuTicks === before.cpuTicks ? idleWindows + 1 : 0;
    // It spoke meanwhile (or its output is held, unread): alive, its answer queued behind its work.
    if (codex.silentForMs >= Date.now() - windowStart) {
      const verdict = judgeUnansweredProbe({
        before,
        now,
        rounds,
        windowMs: opts.windowMs,
        pendingBytes: codex.pendingBytes,
        maxBusyMs,
        idleWindows,
      });
      if (verdict.hung) return verdict;
      if (!busySaid) opts.onBusy?.(verdict.why);
      busySaid = true;
    }
    before = now;
  }
}
