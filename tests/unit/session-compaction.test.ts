// A compaction the client was shown as running must end when its turn ends without Codex saying
// so: here the codex child dies mid-compaction. AcpSession alone, with a stand-in codex client.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AcpSession } from "../../src/core/session/session.js";
import type { SessionUpdate } from "../../src/bridge/index.js";
import { codexItem, note } from "../support/codex-messages.js";
import { FakeCodexClient } from "../support/fake-codex-client.js";

describe("a compaction in a turn that ends unannounced", () => {
  it("is closed as failed when the codex child dies", async () => {
    const sent: SessionUpdate[] = [];
    const session = new AcpSession(
      "t1",
      { cwd: "/ws" },
      {
        host: {} as never,
        log: pino({ level: "silent" }),
        sendUpdate: async (_id, u) => void sent.push(u),
        display: () => ({ compaction: true }),
        answerServerRequest: async () => ({}),
      },
    );
    const codex = new FakeCodexClient();
    session.bind(codex.client, 1);
    codex.emit(
      note("item/started", { threadId: "t1", turnId: "u", item: codexItem({ type: "contextCompaction", id: "c1" }) }),
    );
    session.childExited(1, "killed");
    await session.flush();
    expect(sent).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" },
      { sessionUpdate: "compaction_update", compactionId: "c1", status: "failed" },
    ]);
  });
});
