// A session's outbox: updates reach the connection in the order they were sent; one that arrives
// while nothing waits is handed over at once (every streamed delta passes here), one behind a
// hold (a stored session's history being replayed) or behind a waiting update waits its turn.
import { describe, expect, it } from "vitest";
import { UpdateOutbox } from "../../src/core/session/outbox.js";

type Delivery = { update: string; resolve: () => void; reject: (err: Error) => void };

function harness(gate: { current?: Promise<void> } = {}) {
  const delivered: Delivery[] = [];
  const failures: unknown[] = [];
  const outbox = new UpdateOutbox<string>({
    deliver: (update) =>
      new Promise<void>((resolve, reject) => {
        delivered.push({ update, resolve, reject });
      }),
    hold: () => gate.current,
    onFailure: (err) => void failures.push(err),
  });
  return { outbox, delivered, failures, order: () => delivered.map((d) => d.update) };
}

describe("a session's update outbox", () => {
  it("hands an update over before send returns when nothing waits ahead of it", () => {
    const { outbox, order } = harness();
    void outbox.send("a");
    expect(order()).toEqual(["a"]);
    void outbox.send("b");
    expect(order()).toEqual(["a", "b"]);
  });

  it("holds updates while a hold is set, then hands them over in order, and later ones after them", async () => {
    let release!: () => void;
    const gate: { current?: Promise<void> } = { current: new Promise<void>((resolve) => (release = resolve)) };
    const { outbox, order, delivered } = harness(gate);
    const first = outbox.send("a");
    const second = outbox.send("b");
    await Promise.resolve();
    expect(order()).toEqual([]);
    gate.current = undefined;
    release();
    await new Promise((r) => setImmediate(r));
    expect(order()).toEqual(["a"]);
    // "b" waits for "a" to be taken; "c", sent meanwhile, waits for "b".
    void outbox.send("c");
    delivered[0]!.resolve();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(order()).toEqual(["a", "b"]);
    delivered[1]!.resolve();
    await second;
    await new Promise((r) => setImmediate(r));
    expect(order()).toEqual(["a", "b", "c"]);
  });

  it("flush waits for every update that waited, and resolves at once when none did", async () => {
    let release!: () => void;
    const gate: { current?: Promise<void> } = { current: new Promise<void>((resolve) => (release = resolve)) };
    const { outbox, delivered } = harness(gate);
    void outbox.send("a").catch(() => undefined);
    let flushed = false;
    const flushing = outbox.flush().then(() => (flushed = true));
    await new Promise((r) => setImmediate(r));
    expect(flushed).toBe(false);
    gate.current = undefined;
    release();
    await new Promise((r) => setImmediate(r));
    delivered[0]!.resolve();
    await flushing;
    expect(flushed).toBe(true);
    // Nothing waits now: the next one goes at once and flush has nothing to wait for.
    void outbox.send("b");
    expect(delivered.map((d) => d.update)).toEqual(["a", "b"]);
    await expect(outbox.flush()).resolves.toBeUndefined();
  });

  it("reports a failed delivery, rejects its send, and keeps the updates after it flowing", async () => {
    const { outbox, delivered, failures, order } = harness();
    const sent = outbox.send("a");
    delivered[0]!.reject(new Error("connection closed"));
    await expect(sent).rejects.toThrow("connection closed");
    await new Promise((r) => setImmediate(r));
    expect(failures).toHaveLength(1);
    void outbox.send("b").catch(() => undefined);
    expect(order()).toEqual(["a", "b"]);
  });

  it("keeps the order when a waiting update fails: the next waits for it, then goes", async () => {
    let release!: () => void;
    const gate: { current?: Promise<void> } = { current: new Promise<void>((resolve) => (release = resolve)) };
    const { outbox, delivered, failures, order } = harness(gate);
    const first = outbox.send("a");
    void outbox.send("b").catch(() => undefined);
    gate.current = undefined;
    release();
    await new Promise((r) => setImmediate(r));
    expect(order()).toEqual(["a"]);
    delivered[0]!.reject(new Error("refused"));
    await expect(first).rejects.toThrow("refused");
    await new Promise((r) => setImmediate(r));
    expect(order()).toEqual(["a", "b"]);
    expect(failures).toHaveLength(1);
  });
});
