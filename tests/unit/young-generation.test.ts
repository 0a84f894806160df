// src/startup/young-generation.ts: V8's young generation is kept at its first size for the life of
// the agent, and widened only while something that allocates in bulk holds it (a stored session's
// history streaming through). The flag setter is a stand-in in the first cases; the last runs on
// this process's own V8, to show the flag is honoured after start-up on this Node.
import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { keepYoungGenerationSmall, youngGeneration } from "../../src/startup/young-generation.js";

const KEPT = "--semi-space-growth-factor=1";

function recorder() {
  const flags: string[] = [];
  return { flags, setFlags: (flag: string) => void flags.push(flag) };
}

describe("young generation", () => {
  it("is widened by the first holder and kept small again only when the last one lets go", () => {
    const { flags, setFlags } = recorder();
    const young = youngGeneration(setFlags);
    const a = young.widen();
    const b = young.widen();
    expect(flags).toHaveLength(1);
    expect(flags[0]).not.toBe(KEPT);
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
    const { flags, setFlags } = recorder();
    const young = youngGeneration(setFlags);
    const a = young.widen();
    const b = young.widen();
    a();
    a();
    expect(flags).toHaveLength(1);
    b();
    expect(flags.at(-1)).toBe(KEPT);
  });

  it("on this process's V8: kept small, a burst does not grow it; widened, the same burst does", () => {
    const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")!.space_size;
    // A burst whose objects survive a scavenge or two, as a page of history does while it is written.
    const burst = () => {
      let kept: string[] = [];
      for (let i = 0; i < 200_000; i++) {
        kept.push(`${"y".repeat(1000)}${i}`);
        if (kept.length > 20_000) kept = kept.slice(10_000);
      }
      return kept.length;
    };
    keepYoungGenerationSmall();
    const start = newSpace();
    expect(start).toBeLessThan(32 * 1024 * 1024); // not grown to V8's maximum before this test
    burst();
    expect(newSpace()).toBe(start);
    const release = youngGeneration().widen();
    try {
      burst();
      expect(newSpace()).toBeGreaterThan(start);
    } finally {
      release();
    }
  });
});
