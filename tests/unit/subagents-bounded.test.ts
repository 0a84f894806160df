// State that only grew (issue 26): each subagent a session ever spawned kept its card, its
// translator and its routing in the codex client for the session's life. A day of work spawns
// hundreds. Idle subagents beyond a few are let go (a later message to one starts a new card),
// and the trackers of a turn are dropped when it ends. AcpSession and the subagents feature, with
// a stand-in codex client.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AcpSession } from "../../src/core/session/session.js";
import { subagentsFeature } from "../../src/features/subagents.js";
import type { SessionUpdate } from "../../src/bridge/index.js";
import { codexItem, codexTurn, note } from "../support/codex-messages.js";
import { FakeCodexClient, fakeHost } from "../support/fake-codex-client.js";

describe("a session that spawns many subagents", () => {
  it("keeps a bounded number of them routed, and what it keeps of a finished one is its card", async () => {
    const codex = new FakeCodexClient();
    const routed = codex.threads;
    const sent: SessionUpdate[] = [];
    const session = new AcpSession(
      "parent",
      { cwd: "/ws" },
      {
        host: fakeHost(codex),
        log: pino({ level: "silent" }),
        sendUpdate: async (_id, u) => void sent.push(u),
        display: () => ({}),
        answerServerRequest: async () => ({}),
      },
    );
    session.bind(codex.client, 1);
    const notified: string[] = [];
    const services = {
      clientCapabilities: () => ({ subagents: {} }),
      client: () => ({ notify: async (_m: string, p: { sessionId: string }) => void notified.push(p.sessionId) }),
      log: pino({ level: "silent" }),
    };
    await subagentsFeature().attach!(session, {} as never, services as never);
    const parent = routed.get("parent")!;
    const turn = (id: string, status: string) => codexTurn(id, status);

    for (let i = 0; i < 200; i++) {
      const child = `child-${i}`;
      const spawn = codexItem({
        type: "collabAgentToolCall",
        id: `spawn-${i}`,
        tool: "spawnAgent",
        status: "completed",
        senderThreadId: "parent",
        receiverThreadIds: [child],
        prompt: `task ${i}`,
        model: null,
        agentsStates: {},
      });
      parent.notification(note("item/completed", { threadId: "parent", turnId: "t", item: spawn }));
      const l = routed.get(child)!;
      l.notification(note("turn/started", { threadId: child, turn: turn(`ct-${i}`, "inProgress") }));
      l.notification(
        note("item/started", {
          threadId: child,
          turnId: `ct-${i}`,
          item: codexItem({
            type: "commandExecution",
            id: `cmd-${i}`,
            command: "ls",
            cwd: "/ws",
            status: "inProgress",
            commandActions: [],
          }),
        }),
      );
      l.notification(note("turn/completed", { threadId: child, turn: turn(`ct-${i}`, "completed") }));
    }
    await session.flush();
    // The children's own sessions are written in their own order (not the parent's outbox): let that drain too.
    await new Promise((resolve) => setImmediate(resolve));
    // Every subagent got its card, and the client heard each one's stream.
    expect(sent.filter((u) => u.sessionUpdate === "tool_call" && u.toolCallId.startsWith("subagent-")).length).toBe(
      200,
    );
    expect(new Set(notified).size).toBe(200);
    // What stays routed (and so kept in the codex client) is bounded; nothing of their turns is kept.
    expect(routed.size).toBeLessThanOrEqual(1 + 32);
    expect(session.childItems.size).toBe(0);
    expect(session.trackerSizes().adoptedThreads).toBeLessThanOrEqual(32);
  });
});
