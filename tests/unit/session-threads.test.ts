// Which thread a session runs on (src/core/session/session-threads.ts): a thread Codex has nothing
// of (never prompted) is replaced on a new codex, and the replacement is kept on disk for the
// next agent; a thread Codex keeps a history of is never replaced (its resume error stands).
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { CodexRpcError } from "../../src/codex/index.js";
import { FakeCodexClient } from "../support/fake-codex-client.js";
import { reattachThread, SessionThreads } from "../../src/core/session/session-threads.js";

const log = pino({ level: "silent" });
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A codex that has no rollout for any thread, and starts new ones as "t-new". */
function codexWithoutRollouts(): FakeCodexClient {
  const codex = new FakeCodexClient({
    answers: {
      "thread/resume": (params) => {
        throw new CodexRpcError(`no rollout found for thread id ${params.threadId}`, -32600);
      },
      "thread/start": () => ({ thread: { id: "t-new" } }),
    },
  });
  return codex;
}

describe("session threads", () => {
  it("a never-prompted session whose resume fails goes on in a new thread, which this agent and the next find under the session's id", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "cca-threads-"));
    const threads = new SessionThreads(dir, log);
    const codex = codexWithoutRollouts();
    const now = await reattachThread(
      codex.client,
      { id: "s1", threadId: "s1", settings: { cwd: "/ws" }, keptByCodex: false },
      threads,
      log,
    );
    expect(now).toBe("t-new");
    expect(codex.methods).toEqual(["thread/resume", "thread/start"]);
    expect(await threads.threadOf("s1")).toBe("t-new");
    const next = new SessionThreads(dir, log);
    expect(await next.threadOf("s1")).toBe("t-new");
    expect(await next.threadOf("s2")).toBe("s2");
    expect([...(await next.sessionsByThread())]).toEqual([["t-new", "s1"]]);
    await next.forget("s1");
    expect(await readdir(dir)).toEqual([]);
    expect(await new SessionThreads(dir, log).threadOf("s1")).toBe("s1");
  });

  it("a thread Codex keeps a history of (loaded, forked, prompted) is not replaced: its resume error stands", async () => {
    const codex = codexWithoutRollouts();
    await expect(
      reattachThread(
        codex.client,
        { id: "s1", threadId: "s1", settings: { cwd: "/ws" }, keptByCodex: true },
        undefined,
        log,
      ),
    ).rejects.toThrow("no rollout found");
    expect(codex.methods).toEqual(["thread/resume"]);
  });

  it("ids that are not thread ids never name a file", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "cca-threads-"));
    const threads = new SessionThreads(path.join(dir, "store"), log);
    await threads.replaced("../escape", "t1");
    expect(await threads.threadOf("../escape")).toBe("t1"); // in memory only
    expect(await readdir(dir)).toEqual([]);
  });
});
