// How the client stops codex (src/codex/client.ts kill and close): through the host's process
// stopper (src/platform/processes.ts), which on Windows ends codex's whole tree with taskkill
// instead of TerminateProcess on codex alone. A stopper that records stands in for the host's.
import { spawn } from "node:child_process";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { AppServerClient } from "../../src/codex/index.js";
import type { ProcessStopper } from "../../src/platform/index.js";

/** A child that ignores EOF on stdin (as a stuck codex would) until it is killed. */
const stubborn = () =>
  spawn(process.execPath, ["-e", "process.stdin.resume(); setInterval(() => {}, 1000)"], {
    stdio: ["pipe", "pipe", "pipe"],
  });

function recordingStopper(): {
  stop: ProcessStopper;
  calls: Array<{ pid: number | undefined; signal: NodeJS.Signals }>;
} {
  const calls: Array<{ pid: number | undefined; signal: NodeJS.Signals }> = [];
  return {
    calls,
    stop: (child, signal) => {
      calls.push({ pid: child.pid, signal });
      child.kill("SIGKILL");
    },
  };
}

describe("AppServerClient stops codex through the host's stopper", () => {
  it("kill(): the signal asked for, to codex's pid, and the exit carries the reason", async () => {
    const child = stubborn();
    const { stop, calls } = recordingStopper();
    const client = new AppServerClient(child, pino({ level: "silent" }), { stop });
    client.kill("SIGTERM", "codex stopped responding");
    expect(calls).toEqual([{ pid: child.pid, signal: "SIGTERM" }]);
    expect((await client.exited).reason).toBe("codex stopped responding");
  });

  it("close(): EOF first, then SIGKILL through the stopper when codex lingers past the grace", async () => {
    const child = stubborn();
    const { stop, calls } = recordingStopper();
    const client = new AppServerClient(child, pino({ level: "silent" }), { stop });
    await client.close(50);
    expect(calls).toEqual([{ pid: child.pid, signal: "SIGKILL" }]);
  });
});
