// src/startup/young-generation.ts: V8's young generation is kept at its first size for the life of
// the agent, and widened only while something that allocates in bulk holds it (a stored session's
// history streaming through). The flag setter is a stand-in in the first cases; the last runs on a
// fresh Node's V8, to show the flags are honoured after start-up on this Node.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { youngGeneration } from "../../src/startup/young-generation.js";

const KEPT = "--semi-space-growth-factor=1";

const MiB = 1024 * 1024;
const MODULE = path.resolve(import.meta.dirname, "../../src/startup/young-generation.ts");

/** A stand-in for V8's flag setter, and a young generation of `bytes` (both semi-spaces). */
function recorder(bytes = 2 * MiB) {
  const flags: string[] = [];
  const heap = { bytes };
  return { flags, heap, setFlags: (flag: string) => void flags.push(flag), size: () => heap.bytes };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("young generation", () => {
  it("is widened by the first holder and kept small again only when the last one lets go", () => {
    const { flags, setFlags, size } = recorder();
    const young = youngGeneration({ setFlags, size });
    const a = young.widen();
    const b = young.widen();
    expect(flags).toHaveLength(1);
    expect(flags[0]).toBe("--semi-space-growth-factor=4"); // from 1 MiB a semi-space to 4
    a();
    expect(flags).toHaveLength(1); // b still holds it
    b();
    expect(flags).toEqual([flags[0], KEPT]);
    const c = young.widen();
    expect(flags).toHaveLength(3);
    c();
    expect(flags.at(-1)).toBe(KEPT);
  });

  it("a release called twice counts once", () => {
    const { flags, setFlags, size } = recorder();
    const young = youngGeneration({ setFlags, size });
    const a = young.widen();
    const b = young.widen();
    a();
    a();
    expect(flags).toHaveLength(1);
    b();
    expect(flags.at(-1)).toBe(KEPT);
  });

  it("a V8 whose statistics name no young generation is left as it is (no factor computed from nothing)", () => {
    for (const size of [() => undefined, () => 0]) {
      const flags: string[] = [];
      const release = youngGeneration({ setFlags: (f) => void flags.push(f), size }).widen();
      release();
      expect(flags).toEqual([]);
    }
  });

  it("runs what asks for the flags as loaded (a code cache being made) under the kept-small factor, and puts a widening's back", () => {
    const { flags, setFlags, size } = recorder();
    const young = youngGeneration({ setFlags, size });
    expect(young.asLoaded(() => "made")).toBe("made");
    expect(flags).toEqual([]); // nothing widened: nothing to change
    const release = young.widen();
    const widened = flags[0]!;
    const seen: string[] = [];
    expect(young.asLoaded(() => (seen.push(flags.at(-1)!), 42))).toBe(42);
    expect(seen).toEqual([KEPT]);
    expect(flags).toEqual([widened, KEPT, widened]);
    expect(() =>
      young.asLoaded(() => {
        throw new Error("no cache");
      }),
    ).toThrow("no cache");
    expect(flags.at(-1)).toBe(widened); // put back after a throw too
    release();
    expect(flags.at(-1)).toBe(KEPT);
  });

  it("grows once: kept small again as soon as it reached 4 MiB a semi-space, while still held; not widened again after", () => {
    vi.useFakeTimers();
    const { flags, heap, setFlags, size } = recorder();
    const young = youngGeneration({ setFlags, size });
    const release = young.widen();
    vi.advanceTimersByTime(100);
    expect(flags).toHaveLength(1); // not grown yet: still widened
    heap.bytes = 8 * MiB;
    vi.advanceTimersByTime(20);
    expect(flags.at(-1)).toBe(KEPT);
    release();
    expect(flags).toHaveLength(2);
    young.widen()();
    expect(flags).toHaveLength(2);
  });

  it("on a fresh Node's V8: kept small, a burst leaves it as it is; widened, a load-like burst grows it once, to 4 MiB a semi-space", () => {
    // A process of its own: this test runner's young generation has grown already. Kept small from
    // its start, as the bin does before it loads anything (tsx's loading would grow it).
    const script = `
      import { getHeapSpaceStatistics } from "node:v8";
      import { keepYoungGenerationSmall, youngGeneration } from ${JSON.stringify(MODULE)};
      const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
      // ~2 MB alive at a time (a page or two in flight), 200 MB made, the event loop turning between pages.
      const burst = async () => {
        let alive = [];
        for (let page = 0; page < 400; page++) {
          for (let i = 0; i < 500; i++) alive.push("z".repeat(1000) + i);
          if (alive.length > 2000) alive = alive.slice(1000);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        return alive.length;
      };
      keepYoungGenerationSmall();
      const start = newSpace();
      await burst();
      const kept = newSpace();
      const release = youngGeneration().widen();
      await burst();
      const widened = newSpace();
      release();
      process.stdout.write(JSON.stringify({ start, kept, widened }));
    `;
    const out = execFileSync(
      process.execPath,
      ["--semi-space-growth-factor=1", "--import", "tsx", "--input-type=module", "-e", script],
      { encoding: "utf8" },
    );
    const { start, kept, widened } = JSON.parse(out) as { start: number; kept: number; widened: number };
    expect(start).toBeLessThan(8 * MiB);
    expect(kept).toBe(start);
    expect(widened).toBeGreaterThan(start);
    expect(widened).toBeLessThanOrEqual(8 * MiB);
  });
});
