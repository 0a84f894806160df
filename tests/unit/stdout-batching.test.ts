// The agent's stdout (src/core/transport/stdout.ts): a stream of notifications shares writes, and
// nothing else waits: the first update after a pause, a response and a request go out at once.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { batchedStdout, STREAM_WINDOW_MS, type LineSink } from "../../src/core/transport/stdout.js";

function sink(): { out: LineSink; writes: string[] } {
  const writes: string[] = [];
  const emitter = new EventEmitter();
  const out = Object.assign(emitter, {
    writableNeedDrain: false,
    write: (text: string) => writes.push(text) > 0,
  }) as unknown as LineSink;
  return { out, writes };
}
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const update = (n: number) => ({
  jsonrpc: "2.0" as const,
  method: "session/update",
  params: { sessionId: "s", update: { n } },
});

async function send(stdout: ReturnType<typeof batchedStdout>, message: unknown): Promise<void> {
  const writer = stdout.messages.getWriter();
  await writer.write(message as never);
  writer.releaseLock();
}

describe("stdout batching", () => {
  it("notifications streamed one per turn of the event loop share writes after the first", async () => {
    const { out, writes } = sink();
    const stdout = batchedStdout(
      () => undefined,
      () => undefined,
      out,
    );
    for (let n = 0; n < 20; n++) {
      await send(stdout, update(n));
      await turn();
    }
    await new Promise((r) => setTimeout(r, STREAM_WINDOW_MS * 3));
    const lines = writes.join("").split("\n").filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as ReturnType<typeof update>).params.update.n)).toEqual([
      ...Array(20).keys(),
    ]);
    // The first went out alone, at once; the rest in far fewer writes than messages.
    expect(JSON.parse(writes[0]!)).toEqual(update(0));
    expect(writes.length).toBeLessThan(10);
  });

  it("a response right after a write is not held: it goes out on the next turn with what is queued ahead of it", async () => {
    const { out, writes } = sink();
    const stdout = batchedStdout(
      () => undefined,
      () => undefined,
      out,
    );
    await send(stdout, update(1));
    await turn();
    expect(writes).toHaveLength(1);
    await send(stdout, update(2));
    await send(stdout, { jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } });
    await turn();
    expect(writes).toHaveLength(2);
    expect(
      writes[1]!
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([update(2), { jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }]);
  });

  it("the first update after a pause is not held", async () => {
    const { out, writes } = sink();
    const stdout = batchedStdout(
      () => undefined,
      () => undefined,
      out,
    );
    await send(stdout, update(1));
    await turn();
    await new Promise((r) => setTimeout(r, STREAM_WINDOW_MS + 5));
    await send(stdout, update(2));
    await turn();
    expect(writes).toHaveLength(2);
  });

  it("tells of the id of every answer it sends, not of requests or notifications", async () => {
    const { out } = sink();
    const stdout = batchedStdout(
      () => undefined,
      () => undefined,
      out,
    );
    const ids: unknown[] = [];
    stdout.onAnswer((id) => ids.push(id));
    await send(stdout, update(1));
    await send(stdout, { jsonrpc: "2.0", id: 0, method: "session/request_permission", params: {} });
    await send(stdout, { jsonrpc: "2.0", id: 7, result: {} });
    await send(stdout, { jsonrpc: "2.0", id: "x", error: { code: -32603, message: "no" } });
    expect(ids).toEqual([7, "x"]);
  });
});
