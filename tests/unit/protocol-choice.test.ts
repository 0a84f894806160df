// Which protocol a client speaks (src/core/transport/protocol-choice.ts): chosen by its initialize,
// which need not be its first message (a notification may come before it); every message is
// served in the order it came, whichever protocol serves it.
import { describe, expect, it } from "vitest";
import { asksForV2, peekInitialize } from "../../src/core/transport/protocol-choice.js";

const streamOf = <T>(items: T[]): ReadableStream<T> =>
  new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });

async function all<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for (const reader = stream.getReader(); ; ) {
    const next = await reader.read();
    if (next.done) return out;
    out.push(next.value);
  }
}

const init = (protocolVersion: number) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion },
});
const ping = { jsonrpc: "2.0", method: "$/ping", params: {} };

describe("peekInitialize", () => {
  it("finds the initialize behind notifications and gives every message back in order", async () => {
    const messages = [ping, { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 7 } }, init(2), ping];
    const { initialize, stream } = await peekInitialize(streamOf<unknown>(messages));
    expect(asksForV2(initialize)).toBe(true);
    expect(await all(stream)).toEqual(messages);
  });

  it("the first message when it is the initialize, as before", async () => {
    const { initialize, stream } = await peekInitialize(streamOf<unknown>([init(1), ping]));
    expect(initialize).toEqual(init(1));
    expect(asksForV2(initialize)).toBe(false);
    expect(await all(stream)).toEqual([init(1), ping]);
  });

  it("a request before any initialize decides at once (its client may wait for the answer before initializing)", async () => {
    const list = { jsonrpc: "2.0", id: 0, method: "session/list", params: {} };
    const { initialize, stream } = await peekInitialize(streamOf<unknown>([ping, list, init(2)]));
    expect(initialize).toBeUndefined();
    expect(await all(stream)).toEqual([ping, list, init(2)]);
  });

  it("stops looking after a bounded number of messages (a client that never initializes is served v1, nothing held)", async () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: "2.0", method: "$/ping", params: { i } }));
    const { initialize, stream } = await peekInitialize(streamOf<unknown>([...many, init(2)]));
    expect(initialize).toBeUndefined();
    expect(await all(stream)).toEqual([...many, init(2)]);
  });

  it("a client that leaves before any message", async () => {
    const { initialize, stream } = await peekInitialize(streamOf<unknown>([]));
    expect(initialize).toBeUndefined();
    expect(await all(stream)).toEqual([]);
  });
});
