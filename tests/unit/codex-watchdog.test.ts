// The hang watchdog's decision (src/codex/host/watchdog.ts): a codex that does not answer the probe
// is hung when it is stopped or does no work, and is waited for while it works (bounded). What
// the host says of the process is faked here; the real /proc reading is in platform.test.ts and
// the real codex in tests/e2e/busy-codex.test.ts and hardening.test.ts.
import { describe, expect, it } from "vitest";
import {
  judgeUnansweredProbe,
  MAX_BUSY_MS,
  probeCodex,
  workGraceMs,
  type ProbedCodex,
} from "../../src/codex/host/watchdog.js";
import type { ProcessActivity } from "../../src/platform/index.js";

const running = (cpuTicks: number): ProcessActivity => ({ stopped: false, cpuTicks });
const stopped = (cpuTicks: number): ProcessActivity => ({ stopped: true, cpuTicks });

describe("judgeUnansweredProbe", () => {
  const base = { rounds: 1, windowMs: 5000, pendingBytes: 200 };

  it("a stopped codex is hung, whatever its CPU time did", () => {
    expect(judgeUnansweredProbe({ ...base, before: running(100), now: stopped(150) })).toMatchObject({
      hung: true,
      why: "it is stopped",
    });
    expect(
      judgeUnansweredProbe({ ...base, before: undefined, now: stopped(100), pendingBytes: 50 * 1024 * 1024 }).hung,
    ).toBe(true);
  });

  it("with /proc: CPU time that advanced over the window is work; none in two windows in a row is a hang, in one is a wait for a CPU", () => {
    expect(judgeUnansweredProbe({ ...base, before: running(100), now: running(101) })).toMatchObject({
      hung: false,
      why: expect.stringContaining("working"),
    });
    expect(judgeUnansweredProbe({ ...base, before: running(100), now: running(100) })).toMatchObject({
      hung: true,
      why: "it used no CPU time meanwhile",
    });
    expect(judgeUnansweredProbe({ ...base, before: running(100), now: running(100), idleWindows: 2 })).toMatchObject({
      hung: true,
      why: "it used no CPU time meanwhile",
    });
    // On a machine busier than its cores a working codex can wait a whole window for a CPU.
    expect(judgeUnansweredProbe({ ...base, before: running(100), now: running(100), idleWindows: 1 })).toMatchObject({
      hung: false,
      why: expect.stringContaining("waiting for a CPU"),
    });
    // A huge request does not excuse a codex that does nothing.
    expect(
      judgeUnansweredProbe({ ...base, before: running(100), now: running(100), pendingBytes: 50 * 1024 * 1024 }).hung,
    ).toBe(true);
  });

  it("work is waited for up to MAX_BUSY_MS, then the codex is hung", () => {
    const windows = MAX_BUSY_MS / base.windowMs;
    expect(judgeUnansweredProbe({ ...base, rounds: windows - 1, before: running(100), now: running(500) }).hung).toBe(
      false,
    );
    expect(judgeUnansweredProbe({ ...base, rounds: windows, before: running(100), now: running(500) }).hung).toBe(true);
    expect(
      judgeUnansweredProbe({ ...base, rounds: 3, windowMs: 100, maxBusyMs: 300, before: running(1), now: running(2) })
        .hung,
    ).toBe(true);
  });

  it("without /proc (macOS, Windows): a small request gets one window, a large one a grace that grows with its size", () => {
    const unknown = { before: undefined, now: undefined };
    expect(judgeUnansweredProbe({ ...base, ...unknown })).toMatchObject({
      hung: true,
      why: "it did not answer a cheap request",
    });
    // 1 MiB of requests sent: 32 s more, i.e. six more 5 s windows after the first, the seventh is too many.
    const mib = { ...base, ...unknown, pendingBytes: 1024 * 1024 };
    expect(workGraceMs(mib.pendingBytes)).toBe(32_000);
    expect(judgeUnansweredProbe({ ...mib, rounds: 1 })).toMatchObject({
      hung: false,
      why: expect.stringContaining("1024 KB"),
    });
    expect(judgeUnansweredProbe({ ...mib, rounds: 7 }).hung).toBe(false);
    expect(judgeUnansweredProbe({ ...mib, rounds: 8 }).hung).toBe(true);
    // Bounded like work seen through /proc.
    expect(workGraceMs(10 * 1024 * 1024 * 1024)).toBe(MAX_BUSY_MS);
    // Only one side read (the process went away between the two reads): judged as unknown.
    expect(judgeUnansweredProbe({ ...base, before: undefined, now: running(5) }).hung).toBe(true);
  });
});

/** A codex that answers the probe after `answerAfterMs` (never when undefined), its CPU time as `cpu()` says. */
type FakeCodex = ProbedCodex & { alive: boolean; silentForMs: number; asked: number };

function fakeCodex(answerAfterMs: number | undefined, pendingBytes = 100): FakeCodex {
  const codex: FakeCodex = {
    alive: true,
    pid: 4242,
    silentForMs: 60_000,
    pendingBytes,
    asked: 0,
    request: (): Promise<unknown> => {
      codex.asked++;
      return new Promise((resolve) => {
        if (answerAfterMs !== undefined) setTimeout(() => resolve({ data: [] }), answerAfterMs);
      });
    },
  };
  return codex;
}

describe("probeCodex", () => {
  it("a codex that answers is not hung", async () => {
    const codex = fakeCodex(0);
    expect(await probeCodex(codex, { windowMs: 1000, activity: () => running(1) })).toEqual({
      hung: false,
      why: "it answered",
    });
  });

  it("a stopped codex is hung after one window, asked once", async () => {
    const codex = fakeCodex(undefined);
    expect(await probeCodex(codex, { windowMs: 10, activity: () => stopped(1) })).toMatchObject({
      hung: true,
      why: "it is stopped",
    });
    expect(codex.asked).toBe(1);
  });

  it("a working codex is waited for, window after window, until it answers; said to be busy once", async () => {
    const codex = fakeCodex(100);
    let ticks = 0;
    const said: string[] = [];
    const verdict = await probeCodex(codex, {
      windowMs: 10,
      activity: () => running((ticks += 3)),
      onBusy: (why) => said.push(why),
    });
    expect(verdict).toEqual({ hung: false, why: "it answered" });
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("working");
    expect(codex.asked).toBe(1);
  });

  it("a codex starved of CPU for one window (a busy machine) is waited for; it then answers", async () => {
    // No CPU time seen at all; the answer comes in the second window.
    const codex = fakeCodex(15);
    const verdict = await probeCodex(codex, { windowMs: 10, activity: () => running(5) });
    expect(verdict).toEqual({ hung: false, why: "it answered" });
  });

  it("a codex that stops working (its CPU time stalls) while the probe waits is hung", async () => {
    const codex = fakeCodex(undefined);
    let reads = 0;
    const verdict = await probeCodex(codex, { windowMs: 10, activity: () => running(Math.min(++reads, 3)) });
    expect(verdict).toMatchObject({ hung: true, why: "it used no CPU time meanwhile" });
  });

  it("a codex that speaks meanwhile is alive, even without CPU time seen; one that exits is not hung either", async () => {
    const speaking = fakeCodex(60);
    speaking.silentForMs = 0;
    expect(await probeCodex(speaking, { windowMs: 10, activity: () => running(1) })).toEqual({
      hung: false,
      why: "it answered",
    });
    const exiting = fakeCodex(undefined);
    setTimeout(() => (exiting.alive = false), 30);
    let ticks = 0;
    expect(await probeCodex(exiting, { windowMs: 10, activity: () => running((ticks += 1)) })).toMatchObject({
      hung: false,
      why: "it exited",
    });
  });

  it("working past the bound is hung", async () => {
    const codex = fakeCodex(undefined);
    let ticks = 0;
    expect(
      await probeCodex(codex, { windowMs: 10, maxBusyMs: 50, activity: () => running((ticks += 1)) }),
    ).toMatchObject({ hung: true, why: expect.stringContaining("answered nothing") });
  });

  it("without /proc, a large request's grace is waited out before the codex is called hung", async () => {
    const codex = fakeCodex(undefined, 64 * 1024);
    const said: string[] = [];
    // 64 KiB: 2 s of grace, i.e. twenty more 100 ms windows after the first.
    const verdict = await probeCodex(codex, {
      windowMs: 100,
      activity: () => undefined,
      onBusy: (why) => said.push(why),
    });
    expect(verdict).toMatchObject({ hung: true, why: "it did not answer a cheap request" });
    expect(said[0]).toContain("64 KB");
  });
});
