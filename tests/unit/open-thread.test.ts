// Opening a session's thread (src/core/session/open-thread.ts): what Codex says while a thread
// resumes reaches the session it becomes; a session already open on the thread keeps hearing it,
// and keeps it for good when the resume fails (a refused load leaves it as it was).
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { ThreadListener, v2 } from "../../src/codex/index.js";
import type { SessionOpening } from "../../src/core/feature-api.js";
import { openThread } from "../../src/core/session/open-thread.js";
import type { SessionDeps } from "../../src/core/session/session.js";
import { note } from "../support/codex-messages.js";
import { FakeCodexClient, fakeHost, type Partly } from "../support/fake-codex-client.js";

/** A codex client whose thread/resume the test answers, with app-server's one listener per thread. */
function standInClient(resume: () => Promise<Partly<v2.ThreadResumeResponse>>) {
  const codex = new FakeCodexClient({ answers: { "thread/resume": resume } });
  return { host: fakeHost(codex), threads: codex.threads };
}

const deps = (sent: unknown[]): SessionDeps => ({
  host: {} as never,
  log: pino({ level: "silent" }),
  sendUpdate: async (_id, u) => void sent.push(u),
  display: () => ({}),
  answerServerRequest: async () => ({}),
});
const loading = (): SessionOpening => ({ kind: "load", request: {} as never, settings: { cwd: "/ws" }, key: "k" });
const resumed: Partly<v2.ThreadResumeResponse> = {
  thread: { id: "t1" },
  model: "m",
  approvalPolicy: "on-request",
  sandbox: { type: "readOnly", networkAccess: false },
};

describe("openThread on a resume", () => {
  it("a failed resume of a thread a session here listens to leaves that session listening", async () => {
    const { host, threads } = standInClient(() => Promise.reject(new Error("codex refused the resume")));
    const live: ThreadListener = { notification: () => undefined, request: async () => ({}) };
    threads.set("t1", live);
    await expect(openThread(host, deps([]), loading(), { sessionId: "t1", threadId: "t1" })).rejects.toThrow(
      "codex refused the resume",
    );
    expect(threads.get("t1")).toBe(live);
  });

  it("what Codex says while a thread no session listens to resumes reaches the session it becomes (its token usage)", async () => {
    let emit!: (method: string, params: Record<string, unknown>) => void;
    const { host, threads } = standInClient(async () => {
      emit("thread/tokenUsage/updated", {
        threadId: "t1",
        turnId: "u1",
        tokenUsage: {
          total: {
            totalTokens: 10,
            inputTokens: 8,
            cachedInputTokens: 0,
            cacheWriteInputTokens: 0,
            outputTokens: 2,
            reasoningOutputTokens: 0,
          },
          last: {
            totalTokens: 10,
            inputTokens: 8,
            cachedInputTokens: 0,
            cacheWriteInputTokens: 0,
            outputTokens: 2,
            reasoningOutputTokens: 0,
          },
          modelContextWindow: 1000,
        },
      });
      return resumed;
    });
    emit = (method, params) => threads.get("t1")?.notification(note(method, params));
    const sent: Array<{ sessionUpdate?: string }> = [];
    const session = await openThread(host, deps(sent), loading(), { sessionId: "t1", threadId: "t1" });
    await session.flush();
    expect(sent.some((u) => u.sessionUpdate === "usage_update")).toBe(true);
  });
});
