// src/streams: one line splitter for text (the codex client) and bytes (the transcript recorder).
import { describe, expect, it } from "vitest";
import { LineSplitter } from "../../src/streams/index.js";

describe("LineSplitter", () => {
  it("text: joins lines split across chunks and keeps a long line whole", () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    const long = "x".repeat(1_000_000);
    s.push('{"a":1}\n{"b"');
    s.push(":2}\n");
    for (let i = 0; i < long.length; i += 65536) s.push(long.slice(i, i + 65536));
    s.push("\nlast");
    expect(lines).toEqual(['{"a":1}', '{"b":2}', long]);
    s.push("\n");
    expect(lines.at(-1)).toBe("last");
  });

  it("bytes: splits on \\n across chunks, keeps multi-byte characters whole, drops \\r, flushes the last line on end", () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    const bytes = Buffer.from('{"a":"é"}\r\nnot json\n{"b":1}');
    s.push(bytes.subarray(0, 7)); // splits the two bytes of "é"
    s.push(bytes.subarray(7));
    s.end();
    expect(lines).toEqual(['{"a":"é"}', "not json", '{"b":1}']);
  });
});
