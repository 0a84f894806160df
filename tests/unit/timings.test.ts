// The agent's phase marks (src/log/timings.ts), which `npm run bench` reads into its timeline:
// written at debug level only, with times on the process's own clock, early marks kept until a
// logger exists and then logged with the times they were made.
import { performance } from "node:perf_hooks";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { logEarlyPhases, markEarlyPhase, markPhase } from "../../src/log/timings.js";

function capturingLog(level: string) {
  const lines: string[] = [];
  const log = pino({ level }, { write: (line: string) => void lines.push(line) });
  const timings = () =>
    lines
      .map((l) => JSON.parse(l) as { timing?: string; atMs?: number; timeOrigin?: number })
      .filter((l) => l.timing !== undefined);
  return { log, timings };
}

describe("phase marks", () => {
  it("logs a phase with its time since the process started, at debug level only", () => {
    const debug = capturingLog("debug");
    const before = performance.now();
    markPhase(debug.log, "initialize answered", { ms: 3 });
    const [mark] = debug.timings();
    expect(mark).toMatchObject({ timing: "initialize answered", ms: 3 });
    expect(mark!.atMs).toBeGreaterThanOrEqual(Math.floor(before));
    expect(mark!.atMs).toBeLessThanOrEqual(performance.now() + 0.1);

    const info = capturingLog("info");
    markPhase(info.log, "initialize answered");
    expect(info.timings()).toEqual([]);
  });

  it("logs the marks made before the logger existed with their own times and the clock origin, then forgets them", async () => {
    markEarlyPhase("main");
    const madeAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const first = capturingLog("debug");
    logEarlyPhases(first.log);
    const marks = first.timings();
    expect(marks[0]).toMatchObject({ timing: "process start", atMs: 0, timeOrigin: performance.timeOrigin });
    const main = marks.find((m) => m.timing === "main");
    expect(main!.atMs).toBeLessThanOrEqual(madeAt + 0.1);
    expect(main!.atMs).toBeGreaterThan(madeAt - 20);

    const again = capturingLog("debug");
    logEarlyPhases(again.log);
    expect(again.timings().map((m) => m.timing)).toEqual(["process start"]);
  });

  it("forgets the early marks at info level too (they are not kept for nothing)", () => {
    markEarlyPhase("codex spawned");
    logEarlyPhases(capturingLog("info").log);
    const later = capturingLog("debug");
    logEarlyPhases(later.log);
    expect(later.timings().map((m) => m.timing)).toEqual(["process start"]);
  });
});
