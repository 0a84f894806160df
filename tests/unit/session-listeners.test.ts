// A feature's thread listener that throws must cost only that listener: the session still
// translates the notification for the client, and the other listeners still hear it.
// AcpSession alone, with a stand-in for the codex client (the one thing it binds to).
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AcpSession } from "../../src/core/session/session.js";
import type { AppServerClient, ThreadListener } from "../../src/codex/index.js";
import type { SessionUpdate } from "../../src/bridge/index.js";
import { note } from "../support/codex-messages.js";

describe("a session's thread listeners", () => {
  it("one that throws is logged; the client still gets the update and the next listener still runs", async () => {
    const sent: SessionUpdate[] = [];
    const logged: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void logged.push(line) });
    const session = new AcpSession("t1", { cwd: "/ws" }, { host: {} as never, log, sendUpdate: async (_id, u) => void sent.push(u), display: () => ({}), answerServerRequest: async () => ({}) });
    let listener: ThreadListener | undefined;
    const client = { attachThread: (_id: string, l: ThreadListener) => ((listener = l), () => undefined) } as unknown as AppServerClient;
    session.bind(client, 1);
    const heard: string[] = [];
    session.threadListeners.add(() => {
      throw new Error("feature bug");
    });
    session.threadListeners.add((n) => void heard.push(n.method));

    listener!.notification(note("item/agentMessage/delta", { threadId: "t1", turnId: "u", itemId: "m1", delta: "hello" }));
    await session.flush();

    expect(sent).toEqual([expect.objectContaining({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } })]);
    expect(heard).toEqual(["item/agentMessage/delta"]);
    expect(logged.join("")).toContain("feature bug");
  });
});
