// Text cut for display never splits a character: a cut in the middle of a surrogate pair (an emoji)
// leaves a lone surrogate, which JSON.stringify writes as "\udeXX" and which a Rust reader
// (serde_json: Zed, and Codex for what goes back to it) refuses, dropping the whole message.
import { describe, expect, it } from "vitest";
import { OUTPUT_TAIL_CHARS, outputTail } from "../../src/bridge/commands.js";
import { ThreadEventTranslator, replayEntries } from "../../src/bridge/index.js";
import { textHead, textTail } from "../../src/text/index.js";
import { deriveTitle } from "../../src/core/session/titles.js";
import { note } from "../support/codex-messages.js";

/** No lone surrogate (String.prototype.isWellFormed is ES2024, past this project's lib). */
const wellFormed = (s: string): boolean =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe("cuts of non-BMP text", () => {
  it("a head or a tail gives up half a pair rather than keep it", () => {
    expect(textHead("ab🙂", 3)).toBe("ab");
    expect(textHead("ab🙂", 4)).toBe("ab🙂");
    expect(textHead("abc", 2)).toBe("ab");
    expect(textTail("🙂ab", 3)).toBe("ab");
    expect(textTail("🙂ab", 4)).toBe("🙂ab");
    expect(textTail("abc", 2)).toBe("bc");
  });
  it("a title cut at its length keeps whole characters", () => {
    const title = deriveTitle(`${"x".repeat(40)}${"🙂".repeat(40)}`);
    expect(wellFormed(title ?? "")).toBe(true);
  });
  it("a streamed output's tail never starts with half a pair", () => {
    let now = 0;
    const t = new ThreadEventTranslator({ now: () => (now += 1000) });
    t.translate(
      note("item/started", {
        item: { type: "commandExecution", id: "c", command: "yes", cwd: "/", commandActions: [], status: "inProgress" },
      }),
    );
    const updates = [0, 1].flatMap(() =>
      t.translate(
        note("item/commandExecution/outputDelta", { itemId: "c", delta: `${"🙂".repeat(OUTPUT_TAIL_CHARS / 2)}b` }),
      ),
    );
    for (const u of updates) expect(wellFormed(JSON.stringify(u))).toBe(true);
    expect(JSON.stringify(updates.at(-1))).not.toMatch(/\\ud[c-f]/i);
  });
});

describe("output tails of non-BMP text", () => {
  it("never start with half a surrogate pair", () => {
    expect(wellFormed(outputTail("🙂🙂🙂b", 4))).toBe(true); // the last 4 units: half an emoji, an emoji, "b"
    expect(wellFormed(outputTail(`${"🙂".repeat(OUTPUT_TAIL_CHARS)}b`))).toBe(true);
  });
  it("a replayed command's update is well-formed JSON for a Rust reader", () => {
    const item = {
      type: "commandExecution",
      id: "call_1",
      command: "cat x",
      cwd: "/w",
      status: "completed",
      commandActions: [],
      aggregatedOutput: `${"🙂".repeat(OUTPUT_TAIL_CHARS)}b`,
      exitCode: 0,
      durationMs: 1,
      processId: null,
      source: "agent",
    };
    const updates = replayEntries([{ item, turnId: "t1", turnEnded: true, newestTurn: false }], {
      cwd: "/w",
      display: {},
    });
    const line = JSON.stringify(updates);
    // A lone trailing surrogate escape: serde_json's "lone leading surrogate in hex escape".
    expect(/(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i.exec(line)?.[0]).toBeUndefined();
  });
});
