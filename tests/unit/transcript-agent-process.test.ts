// How replay stops the agent it runs (tools/transcripts/agent-process.ts), per host: the agent's
// process group on POSIX (run for real by tests/e2e/transcript-runner.test.ts), its process tree on
// Windows (no groups there). The Windows branch runs here with the platform and stopper passed in.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { stopAgentProcess } from "../../tools/transcripts/agent-process.js";

describe("stopAgentProcess", () => {
  it("Windows: the tree through the host's stopper (taskkill /T /F), never the agent alone", () => {
    const child = { pid: 4242, kill: vi.fn(() => true) };
    const stop = vi.fn();
    stopAgentProcess(child, "SIGKILL", "win32", stop);
    expect(stop).toHaveBeenCalledWith(child, "SIGKILL");
    expect(child.kill).not.toHaveBeenCalled();
  });

  it("POSIX: the signal reaches what the agent started, through its group", async () => {
    // A group leader whose child would otherwise outlive it.
    const leader = spawn("sh", ["-c", "sleep 30 & echo $!; wait"], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const grandchild = Number(
      await new Promise<string>((resolve) => leader.stdout.once("data", (d: Buffer) => resolve(d.toString().trim()))),
    );
    const gone = new Promise<void>((resolve) => leader.once("exit", () => resolve()));
    stopAgentProcess(leader, "SIGKILL", "linux");
    await gone;
    // Gone, or dead and waiting to be reaped by whoever inherited it (a zombie: state Z).
    const state = (): string => {
      try {
        return /\) (\S)/.exec(readFileSync(`/proc/${grandchild}/stat`, "utf8"))?.[1] ?? "?";
      } catch {
        return "gone";
      }
    };
    await vi.waitFor(() => expect(["gone", "Z"]).toContain(state()));
  });

  it("a process that never started has nothing to stop", () => {
    const child = { pid: undefined, kill: vi.fn(() => true) };
    const stop = vi.fn();
    stopAgentProcess(child, "SIGTERM", "win32", stop);
    stopAgentProcess(child, "SIGTERM", "linux", stop);
    expect(stop).not.toHaveBeenCalled();
    expect(child.kill).not.toHaveBeenCalled();
  });
});
