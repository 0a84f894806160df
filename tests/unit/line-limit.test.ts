import { afterEach, describe, expect, it, vi } from "vitest";
import { LimitedLines, readPipeLines } from "../../src/streams/index.js";

const text = (b: Uint8Array): string => Buffer.from(b).toString("utf8");

describe("LimitedLines", () => {
  it("passes lines through whole, across chunks, and drops the ones over the limit as they stream", () => {
    const lines: string[] = [];
    let tooLong = 0;
    const limited = new LimitedLines(
      10,
      () => tooLong++,
      (line) => lines.push(text(line)),
    );
    for (const chunk of ["ab", "c\nde", "f\n0123456", "789abcdef", "\nlast"]) limited.write(Buffer.from(chunk));
    limited.end();
    expect(lines).toEqual(["abc\n", "def\n", "last"]);
    expect(tooLong).toBe(1);
  });

  it("copies what it keeps when the reader reuses one buffer for every read", () => {
    const lines: string[] = [];
    const limited = new LimitedLines(
      100,
      () => {},
      (line) => lines.push(text(line)),
      { copy: true },
    );
    const shared = Buffer.alloc(4);
    for (const chunk of ["one\n", "two", "\nthr", "ee\n"]) {
      shared.fill(0);
      const n = shared.write(chunk);
      limited.write(shared.subarray(0, n));
    }
    shared.fill(0x21);
    expect(lines).toEqual(["one\n", "two\n", "three\n"]);
  });

  it("assembles a long line (past the small-copy size) intact from a reused buffer", () => {
    const lines: Uint8Array[] = [];
    const limited = new LimitedLines(
      2 * 1024 * 1024,
      () => {},
      (line) => lines.push(line),
      { copy: true },
    );
    const shared = Buffer.alloc(64 * 1024);
    const expected: number[] = [];
    for (let i = 0; i < 20; i++) {
      shared.fill(0x61 + i);
      limited.write(shared);
      expected.push(0x61 + i);
    }
    limited.write(Buffer.from("\nnext\n"));
    expect(lines).toHaveLength(2);
    expect(lines[0]!.byteLength).toBe(20 * 64 * 1024 + 1);
    for (let i = 0; i < 20; i++) expect(lines[0]![i * 64 * 1024 + 5]).toBe(expected[i]);
    expect(text(lines[1]!)).toBe("next\n");
  });

  it("holds nothing of a dropped line, however long", () => {
    let tooLong = 0;
    const limited = new LimitedLines(
      8,
      () => tooLong++,
      () => expect.fail("nothing is emitted"),
    );
    for (let i = 0; i < 1000; i++) limited.write(Buffer.alloc(1024, 0x78));
    expect(limited.heldBytes).toBe(0);
    limited.write(Buffer.from("\n"));
    expect(tooLong).toBe(1);
  });
});

describe("LimitedLines' long-line block", () => {
  const MAX = 24 * 1024 * 1024;
  const feed = (limited: LimitedLines, mib: number): void => {
    const shared = Buffer.alloc(64 * 1024, 0x78);
    for (let i = 0; i < mib * 16; i++) limited.write(shared);
  };
  /** The resizable buffers a long line is assembled in (they reserve MAX), seen through their resizes. */
  const watchBlocks = (): { blocks: Set<ArrayBuffer>; largest: () => number } => {
    const blocks = new Set<ArrayBuffer>();
    let largest = 0;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the original, called with its buffer as `this` below
    const resize = ArrayBuffer.prototype.resize;
    vi.spyOn(ArrayBuffer.prototype, "resize").mockImplementation(function (this: ArrayBuffer, bytes?: number) {
      if (this.maxByteLength === MAX) {
        blocks.add(this);
        largest = Math.max(largest, bytes ?? 0);
      }
      return resize.call(this, bytes);
    });
    return { blocks, largest: () => largest };
  };
  afterEach(() => vi.restoreAllMocks());
  const sizes = (blocks: Set<ArrayBuffer>): number[] => [...blocks].map((b) => b.byteLength);

  // Garbage waits for a major GC, and a lone storm of input may not bring one for minutes: a
  // dropped 30 MiB line held 30 MiB of RSS until then (issue 14's fuzz test). The block gives
  // its pages back the moment the line is dropped (shrunk to nothing: V8 returns a shrunk
  // buffer's pages at once), whatever the GC does. (The RSS this saves is the bench's to measure.)
  it("gives a dropped line's memory back at once", () => {
    const watched = watchBlocks();
    let tooLong = 0;
    const limited = new LimitedLines(
      MAX,
      () => tooLong++,
      () => expect.fail("nothing is emitted"),
      { copy: true },
    );
    feed(limited, 30);
    expect(watched.largest()).toBeGreaterThan(16 * 1024 * 1024); // the line grew in the block until it was over
    expect(sizes(watched.blocks)).toEqual([0]);
    limited.write(Buffer.from("\n"));
    expect(tooLong).toBe(1);
    expect(limited.heldBytes).toBe(0);
  });

  it("hands a long line on in its block, cut to the line, and assembles the next in a new one", () => {
    const watched = watchBlocks();
    const lines: Uint8Array[] = [];
    const limited = new LimitedLines(
      MAX,
      () => {},
      (line) => lines.push(line),
      { copy: true },
    );
    feed(limited, 16);
    limited.write(Buffer.from("\n"));
    expect(lines[0]!.byteLength).toBe(16 * 1024 * 1024 + 1);
    expect(lines[0]![16 * 1024 * 1024 - 1]).toBe(0x78);
    // No copy: the line is the block (V8's pages, given back when it is collected, where a copy in
    // a plain ArrayBuffer came from malloc and stayed on the C heap), shrunk to the line's bytes.
    expect(watched.largest()).toBeGreaterThanOrEqual(16 * 1024 * 1024);
    expect(watched.blocks.has(lines[0]!.buffer as ArrayBuffer)).toBe(true);
    expect((lines[0]!.buffer as ArrayBuffer).resizable).toBe(true);
    expect(sizes(watched.blocks)).toEqual([16 * 1024 * 1024 + 1]);
    // The next long line is assembled elsewhere: the one handed on stays as it was.
    const second = Buffer.alloc(64 * 1024, 0x79);
    for (let i = 0; i < 8 * 16; i++) limited.write(second);
    limited.write(Buffer.from("\n"));
    expect(lines[1]!.byteLength).toBe(8 * 1024 * 1024 + 1);
    expect(lines[1]!.buffer).not.toBe(lines[0]!.buffer);
    expect(lines[0]![0]).toBe(0x78);
    expect(lines[0]!.byteLength).toBe(16 * 1024 * 1024 + 1);
  });
});

describe("readPipeLines per host", () => {
  it("on Windows it stands aside (undefined, the descriptor untouched): Node's own stdin stream reads there", () => {
    const notAnFd = 2 ** 30; // fstat would throw EBADF: proof it is never looked at
    expect(readPipeLines(notAnFd, 1024, () => undefined, 64, "win32")).toBeUndefined();
    expect(() => readPipeLines(notAnFd, 1024, () => undefined, 64, "linux")).toThrow(/EBADF/);
  });
});
