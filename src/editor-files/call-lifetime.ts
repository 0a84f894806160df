// How long a file-tool call may run, and what gives it up, on its own: every call gets one signal
// that the MCP request, the turn's cancel, the session's close and our own deadline (just before
// Codex's) all fire. The session wiring in feature.ts only says when to give up.

/**
 * Our own deadline for a call, a little before Codex's: the call is given up here first, so the
 * model reads our "nothing was written" rather than Codex's bare timeout, and nothing can be
 * written after Codex stopped waiting.
 */
function ownDeadlineMs(codexSec: number): number {
  const ms = codexSec * 1000;
  return Math.max(1, ms - Math.min(5000, ms * 0.1));
}

/**
 * Runs one call with a signal that fires when any of these gives it up: the MCP request (Codex
 * dropped it or sent notifications/cancelled), the turn's cancel, the session's close, or our own
 * deadline just before Codex's. `running`: the session's calls running now (giveUp aborts them).
 */
export async function runCall<T>(
  running: Set<AbortController>,
  timeoutSec: number,
  mcpSignal: AbortSignal,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onMcp = (): void => controller.abort(mcpSignal.reason);
  if (mcpSignal.aborted) onMcp();
  else mcpSignal.addEventListener("abort", onMcp, { once: true });
  const timer = setTimeout(
    () => controller.abort(new Error("past the file tools' deadline")),
    ownDeadlineMs(timeoutSec),
  );
  timer.unref();
  running.add(controller);
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
    mcpSignal.removeEventListener("abort", onMcp);
    running.delete(controller);
  }
}

/** Gives up every call still running (the turn was cancelled, or the session closed). */
export function giveUp(running: Set<AbortController>, reason: string): void {
  for (const controller of running) controller.abort(new Error(reason));
  running.clear();
}
