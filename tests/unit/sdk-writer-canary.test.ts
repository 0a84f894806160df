// Canary on the ACP SDK's writer contract (issue 26). The agent's stdout (src/core/transport/stdout.ts) hands
// the SDK a ReusedWriterStream: one writer that stays, whose release does nothing. That holds only
// while the SDK writes the way it did when this was built: one message at a time (it awaits each
// write before the next, so no lock is needed) through getWriter/write/releaseLock, and its sends
// wait on the stream (back-pressure); the agent flushes stdout itself at shutdown, so how the SDK
// ends the stream is not relied on. The SDK is pinned to an exact version; this test drives
// the real SDK connection over such a stream, and fails if a new SDK writes otherwise.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ReusedWriterStream } from "../../src/streams/index.js";

/** An agent connected through a ReusedWriterStream whose sink the test holds or lets go. */
function agentOverReusedWriter() {
  const written: acp.AnyMessage[] = [];
  let hold: Promise<void> | undefined;
  let inSink = 0;
  let mostAtOnce = 0;
  const writable = new ReusedWriterStream<acp.AnyMessage>({
    write: async (message) => {
      inSink++;
      mostAtOnce = Math.max(mostAtOnce, inSink);
      written.push(message);
      await hold;
      inSink--;
    },
    close: () => undefined,
  });
  let client!: acp.AgentContext;
  const readable = new ReadableStream<acp.AnyMessage>({ start: () => undefined });
  const connection = acp
    .agent({ name: "canary" })
    .onConnect((c) => {
      client = c.client;
    })
    .connect({ readable, writable });
  return {
    connection,
    client: () => client,
    written,
    mostAtOnce: () => mostAtOnce,
    holdWrites(): () => void {
      let release!: () => void;
      hold = new Promise<void>((r) => (release = r));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

const update = (i: number) => ({
  sessionId: "s",
  update: { sessionUpdate: "agent_message_chunk" as const, content: { type: "text" as const, text: String(i) } },
});

describe("the ACP SDK's writer contract (canary)", () => {
  it("the SDK is pinned to the exact version this contract was checked against", () => {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const installed = JSON.parse(
      readFileSync(
        path.resolve(import.meta.dirname, "../../node_modules/@agentclientprotocol/sdk/package.json"),
        "utf8",
      ),
    ) as { version: string };
    expect(pkg.dependencies["@agentclientprotocol/sdk"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed.version).toBe(pkg.dependencies["@agentclientprotocol/sdk"]);
  });

  it("writes one message at a time, in the order sent, each once, even when thousands are sent at once", async () => {
    const a = agentOverReusedWriter();
    await Promise.all(
      Array.from({ length: 2_000 }, (_, i) => a.client().notify(acp.methods.client.session.update, update(i))),
    );
    const texts = a.written.map(
      (m) => (m as { params: { update: { content: { text: string } } } }).params.update.content.text,
    );
    expect(texts).toEqual(Array.from({ length: 2_000 }, (_, i) => String(i)));
    expect(a.mostAtOnce()).toBe(1);
    a.connection.close();
  });

  it("waits on the stream: while the sink holds a write, the next message is not written and its send does not settle", async () => {
    const a = agentOverReusedWriter();
    const release = a.holdWrites();
    let secondSettled = false;
    const first = a.client().notify(acp.methods.client.session.update, update(1));
    const second = a
      .client()
      .notify(acp.methods.client.session.update, update(2))
      .then(() => (secondSettled = true));
    // The first write reached the sink and is held there; give the SDK every chance to go on.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(a.written).toHaveLength(1);
    expect(secondSettled).toBe(false);
    release();
    await Promise.all([first, second]);
    expect(a.written).toHaveLength(2);
    a.connection.close();
  });
});
