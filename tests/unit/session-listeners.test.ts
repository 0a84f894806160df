// A feature's thread listener that throws must cost only that listener: the session still
// translates the notification for the client, and the other listeners still hear it.
// AcpSession alone, with a stand-in for the codex client (the one thing it binds to).
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AcpSession } from "../../src/core/session/session.js";
import type { SessionUpdate } from "../../src/bridge/index.js";
import { note } from "../support/codex-messages.js";
import { FakeCodexClient } from "../support/fake-codex-client.js";

describe("a session's thread listeners", () => {
  it("one that throws is logged; the client still gets the update and the next listener still runs", async () => {
    const sent: SessionUpdate[] = [];
    const logged: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void logged.push(line) });
    const session = new AcpSession(
      "t1",
      { cwd: "/ws" },
      {
        host: {} as never,
        log,
        sendUpdate: async (_id, u) => void sent.push(u),
        display: () => ({}),
        answerServerRequest: async () => ({}),
      },
    );
    const codex = new FakeCodexClient();
    session.bind(codex.client, 1);
    const heard: string[] = [];
    session.on("notification", () => {
      throw new Error("feature bug");
    });
    session.on("notification", (n) => void heard.push(n.method));

    codex.emit(note("item/agentMessage/delta", { threadId: "t1", turnId: "u", itemId: "m1", delta: "hello" }));
    await session.flush();

    expect(sent).toEqual([
      expect.objectContaining({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } }),
    ]);
    expect(heard).toEqual(["item/agentMessage/delta"]);
    expect(logged.join("")).toContain("feature bug");
  });
});

describe("a session's usage_update _meta", () => {
  it("carries what usageMeta listeners add, on usage_updates only; one that throws costs only its part", async () => {
    const sent: SessionUpdate[] = [];
    const log = pino({ level: "silent" });
    const session = new AcpSession(
      "t3",
      { cwd: "/ws" },
      {
        host: {} as never,
        log,
        sendUpdate: async (_id, u) => void sent.push(u),
        display: () => ({}),
        answerServerRequest: async () => ({}),
      },
    );
    const codex = new FakeCodexClient();
    session.bind(codex.client, 1);
    session.on("usageMeta", () => ({ "x/limits": { used: 5 } }));
    session.on("usageMeta", () => {
      throw new Error("feature bug");
    });
    session.on("usageMeta", () => undefined);
    const usage = {
      totalTokens: 10,
      inputTokens: 8,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      outputTokens: 2,
      reasoningOutputTokens: 0,
    };
    codex.emit(
      note("thread/tokenUsage/updated", {
        threadId: "t3",
        turnId: "u",
        tokenUsage: { total: usage, last: usage, modelContextWindow: 1000 },
      }),
    );
    codex.emit(note("item/agentMessage/delta", { threadId: "t3", turnId: "u", itemId: "m1", delta: "hi" }));
    await session.flush();
    expect(sent).toEqual([
      { sessionUpdate: "usage_update", used: 10, size: 1000, _meta: { "x/limits": { used: 5 } } },
      expect.not.objectContaining({ _meta: expect.anything() }),
    ]);
  });
});

describe("a session's listeners at close", () => {
  it("are all dropped by the session, whether the feature that added them unsubscribed or not", () => {
    const session = new AcpSession(
      "t2",
      { cwd: "/ws" },
      {
        host: {} as never,
        log: pino({ level: "silent" }),
        sendUpdate: async () => undefined,
        display: () => ({}),
        answerServerRequest: async () => ({}),
      },
    );
    session.on("notification", () => undefined);
    session.on("cancel", () => undefined);
    session.on("sizes", () => ({ mine: 1 }));
    expect(session.trackerSizes()).toMatchObject({ threadListeners: 1, cancelHooks: 1, mine: 1 });
    session.close();
    expect(session.trackerSizes()).toMatchObject({ threadListeners: 0, cancelHooks: 0 });
    expect(session.trackerSizes().mine).toBeUndefined();
    // A listener added after the close is not kept either.
    session.on("notification", () => undefined);
    expect(session.trackerSizes().threadListeners).toBe(0);
  });
});
