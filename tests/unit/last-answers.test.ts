// The end of the client's input held until what it asked is answered (src/core/transport/last-answers.ts):
// the connection sees the end once every request read was answered, or after the bound; what is
// not a request (a notification, an answer to the agent's own request) holds nothing.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { holdEndForAnswers } from "../../src/core/transport/last-answers.js";

const streamOf = <T>(items: T[]): ReadableStream<T> =>
  new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });

const request = (id: number | string, method = "session/new") => ({ jsonrpc: "2.0", id, method, params: {} });
const silent = pino({ level: "silent" });

describe("holdEndForAnswers", () => {
  it("the input's end waits for the answers to the requests read; the caller is told once, to stop running turns", async () => {
    let ends = 0;
    let ended!: () => void;
    const endSeen = new Promise<void>((resolve) => (ended = resolve));
    const held = holdEndForAnswers(
      streamOf<unknown>([request(1, "initialize"), request("two"), request(3, "session/prompt")]),
      {
        log: silent,
        onEnd: () => {
          ends++;
          ended();
        },
      },
    );
    const reader = held.readable.getReader();
    for (let n = 0; n < 3; n++) expect((await reader.read()).done).toBe(false);
    let done = false;
    const last = reader.read().then((r) => (done = r.done));
    held.answered(1);
    await endSeen;
    expect(done).toBe(false);
    held.answered("two");
    held.answered(99); // not a request it read
    expect(done).toBe(false);
    held.answered(3);
    expect(await last).toBe(true);
    expect(ends).toBe(1);
  });

  it("ends after the bound when a request is never answered", async () => {
    const warnings: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void warnings.push(line) });
    const held = holdEndForAnswers(streamOf<unknown>([request(7)]), { log, onEnd: () => undefined, boundMs: 20 });
    const reader = held.readable.getReader();
    expect((await reader.read()).done).toBe(false);
    expect((await reader.read()).done).toBe(true);
    expect(warnings.join("")).toContain("still unanswered");
  });

  it("notifications and the client's answers to the agent's requests hold nothing: the end comes at once", async () => {
    let ends = 0;
    const messages = [
      { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } },
      { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "cancelled" } } },
    ];
    const held = holdEndForAnswers(streamOf<unknown>(messages), { log: silent, onEnd: () => ends++ });
    const reader = held.readable.getReader();
    expect((await reader.read()).done).toBe(false);
    expect((await reader.read()).done).toBe(false);
    expect((await reader.read()).done).toBe(true);
    expect(ends).toBe(0);
  });
});
