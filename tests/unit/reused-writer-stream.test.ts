// src/streams/reused-writer-stream.ts: a WritableStream for a writer that takes a writer per
// message (the ACP SDK: getWriter, write, releaseLock), without a standard writer's cost.
import { describe, expect, it } from "vitest";
import { ReusedWriterStream } from "../../src/streams/index.js";
import { afterQueuedPromises } from "../support/wait-for.js";

/** Writes the way the ACP SDK's connection does: a writer per message, released after it. */
async function sendLikeTheSdk<T>(stream: WritableStream<T>, message: T): Promise<void> {
  const writer = stream.getWriter();
  try {
    await writer.write(message);
  } finally {
    writer.releaseLock();
  }
}

describe("ReusedWriterStream", () => {
  it("delivers every message in order", async () => {
    const seen: number[] = [];
    const stream = new ReusedWriterStream<number>({ write: (n) => void seen.push(n), close: () => undefined });
    for (let i = 0; i < 10_000; i++) await sendLikeTheSdk(stream, i);
    expect(seen).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
  });

  it("a pipe into the stream reaches the same sink, and its end closes it", async () => {
    const seen: number[] = [];
    let closes = 0;
    const stream = new ReusedWriterStream<number>({ write: (n) => void seen.push(n), close: () => void closes++ });
    await ReadableStream.from([1, 2, 3]).pipeTo(stream);
    expect(seen).toEqual([1, 2, 3]);
    expect(closes).toBe(1);
    await expect(sendLikeTheSdk(stream, 4)).rejects.toThrow(/closed/);
  });

  it("a write settles when the sink's promise does (back-pressure reaches the sender)", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let received = 0;
    const stream = new ReusedWriterStream<string>({ write: () => (received++, held), close: () => undefined });
    let settled = false;
    const sent = sendLikeTheSdk(stream, "a").then(() => (settled = true));
    // Promises only: once everything they had queued has run, the write waits on the sink alone.
    await afterQueuedPromises();
    expect(received).toBe(1);
    expect(settled).toBe(false);
    release();
    await sent;
    expect(settled).toBe(true);
  });

  it("releasing the writer costs no rejected promises: its `closed` stays pending while the stream is open", async () => {
    const stream = new ReusedWriterStream<string>({ write: () => undefined, close: () => undefined });
    const writer = stream.getWriter();
    writer.releaseLock();
    let state = "pending";
    writer.closed.then(
      () => (state = "closed"),
      () => (state = "rejected"),
    );
    await afterQueuedPromises(); // a standard writer's release rejects `closed` by then
    expect(state).toBe("pending");
  });

  it("close runs the sink's close once and resolves `closed`; a write after it, or after an abort, is refused", async () => {
    let closes = 0;
    const stream = new ReusedWriterStream<string>({ write: () => undefined, close: () => void closes++ });
    const writer = stream.getWriter();
    await writer.close();
    await writer.close();
    expect(closes).toBe(1);
    await expect(writer.closed).resolves.toBeUndefined();
    await expect(writer.write("late")).rejects.toThrow(/closed/);
    const aborted = new ReusedWriterStream<string>({ write: () => undefined, close: () => undefined });
    await aborted.getWriter().abort(new Error("gone"));
    await expect(sendLikeTheSdk(aborted, "late")).rejects.toThrow(/gone/);
    const abortedBare = new ReusedWriterStream<string>({ write: () => undefined, close: () => undefined });
    await abortedBare.getWriter().abort();
    await expect(sendLikeTheSdk(abortedBare, "late")).rejects.toThrow(/aborted/);
  });

  it("a sink that throws rejects that write", async () => {
    const stream = new ReusedWriterStream<string>({
      write: () => {
        throw new Error("cannot write");
      },
      close: () => undefined,
    });
    await expect(sendLikeTheSdk(stream, "x")).rejects.toThrow("cannot write");
  });
});
