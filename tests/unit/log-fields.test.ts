// Log records stay short whatever a client sends (issue 49 item 6): a value taken from a message
// (a session id, a request id, a client's name) may be megabytes; logged whole, a 20 MB session id
// cost a 60 MB encoding buffer per line and left the C heap larger for good.
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { boundedFields } from "../../src/log/index.js";

describe("boundedFields", () => {
  it("cuts a long text to 2,000 characters and says its length, here and one level down", () => {
    const huge = "x".repeat(20 * 1024 * 1024);
    const out = boundedFields({ sessionId: huge, nested: { id: huge, short: "ok" }, n: 5 });
    expect(out.sessionId).toBe(`${"x".repeat(2000)}… (${huge.length} chars)`);
    expect(out.nested).toEqual({ id: `${"x".repeat(2000)}… (${huge.length} chars)`, short: "ok" });
    expect(out.n).toBe(5);
  });

  it("leaves a record without long texts as it is (the same object), and an emoji uncut", () => {
    const record = { sessionId: "s-1", err: new Error("boom"), list: ["y".repeat(5000)] };
    expect(boundedFields(record)).toBe(record);
    const emoji = boundedFields({ text: `${"a".repeat(1999)}😀tail`.padEnd(3000, "z") });
    expect(emoji.text).toMatch(/^a{1999}… \(3000 chars\)$/);
  });

  it("as pino's log formatter: the line written is short", () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    pino({ formatters: { log: boundedFields } }, sink).warn(
      { sessionId: "s".repeat(1_000_000) },
      "cancel for an unknown session; ignored",
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(2_500);
    expect(lines[0]).toContain("(1000000 chars)");
  });
});
