// The cancel path's fallback (issue 26): when Codex confirms the interrupt in time, the fallback
// that would give the turn up does nothing later. Before, it still fired ~1 s after: it marked the
// *next* turn's running compaction as interrupted and left an abandoned-turn entry behind.
// AcpSession alone, with a stand-in codex client.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AcpSession } from "../../src/core/session/session.js";
import type { SessionUpdate } from "../../src/bridge/index.js";
import { codexItem, codexTurn, note } from "../support/codex-messages.js";
import { FakeCodexClient, fakeHost } from "../support/fake-codex-client.js";

describe("a cancel Codex confirms at once", () => {
  it("leaves the next turn alone: its compaction is not marked interrupted by the first cancel's fallback", async () => {
    const sent: SessionUpdate[] = [];
    let turns = 0;
    const started: Array<() => void> = [];
    /** Resolves once the n-th turn/start was sent. */
    const turnStarted = (n: number): Promise<void> =>
      turns >= n ? Promise.resolve() : new Promise((resolve) => started.push(() => turns >= n && resolve()));
    const completed = (turnId: string, status: string) =>
      note("turn/completed", {
        threadId: "t1",
        turn: codexTurn(turnId, status, true),
      });
    const codex = new FakeCodexClient({
      answers: {
        "turn/start": () => {
          const id = `turn-${++turns}`;
          for (const wake of started.splice(0)) wake();
          return { turn: { id, status: "inProgress" } };
        },
        // Codex confirms the interrupt at once.
        "turn/interrupt": () => {
          queueMicrotask(() => codex.emit(completed("turn-1", "interrupted")));
          return {};
        },
      },
    });
    const session = new AcpSession(
      "t1",
      { cwd: "/ws" },
      {
        host: fakeHost(codex),
        log: pino({ level: "silent" }),
        sendUpdate: async (_id, u) => void sent.push(u),
        display: () => ({ compaction: true }),
        answerServerRequest: async () => ({}),
      },
    );
    session.bind(codex.client, 1);

    const first = session.prompt([{ type: "text", text: "one", text_elements: [] }]);
    await turnStarted(1);
    await session.cancel();
    expect((await first).stopReason).toBe("cancelled");

    const second = session.prompt([{ type: "text", text: "two", text_elements: [] }]);
    await turnStarted(2);
    codex.emit(
      note("item/started", {
        threadId: "t1",
        turnId: "turn-2",
        item: codexItem({ type: "contextCompaction", id: "c2" }),
      }),
    );
    // Past the first cancel's grace period (900 ms): its fallback, had it been left armed, would
    // fire now. Waiting out a real timer is the scenario, not a synchronisation.
    await new Promise((r) => setTimeout(r, 1200));
    codex.emit(
      note("item/completed", {
        threadId: "t1",
        turnId: "turn-2",
        item: codexItem({ type: "contextCompaction", id: "c2" }),
      }),
    );
    codex.emit(completed("turn-2", "completed"));
    expect((await second).stopReason).toBe("end_turn");
    await session.flush();
    expect(sent.filter((u) => u.sessionUpdate === "compaction_update")).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "c2", status: "in_progress" },
      { sessionUpdate: "compaction_update", compactionId: "c2", status: "completed" },
    ]);
  });
});
