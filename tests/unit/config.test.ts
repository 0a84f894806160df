import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/config/index.js";

describe("CODEX_ACP_CODEX_ARGS", () => {
  it("splits words and keeps quoted values whole", () => {
    expect(parseArgs(`  -c model="gpt-5.5"   -c developer_instructions="be terse" -c 'x=a b' `)).toEqual([
      "-c",
      "model=gpt-5.5",
      "-c",
      "developer_instructions=be terse",
      "-c",
      "x=a b",
    ]);
    expect(parseArgs("")).toEqual([]);
  });

  it("takes a JSON array as it is, and refuses what it cannot split", () => {
    expect(parseArgs('["-c", "a=\\"b c\\""]')).toEqual(["-c", 'a="b c"']);
    expect(() => parseArgs('["-c", 1]')).toThrow(/array of strings/);
    expect(() => parseArgs('-c "open')).toThrow(/unbalanced/);
  });
});
