// A message as codex's parser takes it (src/codex/json.ts): codex refuses a line with a lone UTF-16
// surrogate escape and drops the whole message, so none may be written, in a value or in a key.
import { describe, expect, it } from "vitest";
import { jsonLineForCodex } from "../../src/codex/json.js";

const LONE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;

describe("jsonLineForCodex", () => {
  it("writes a well-formed message exactly as JSON.stringify does, emoji pairs included", () => {
    const message = {
      id: 1,
      method: "turn/start",
      params: { input: [{ type: "text", text: "ok \ud83d\ude00 done" }] },
    };
    expect(jsonLineForCodex(message)).toBe(JSON.stringify(message));
  });

  it("writes a lone surrogate in a string value as U+FFFD, at any depth", () => {
    const line = jsonLineForCodex({ params: { input: [{ text: "half \ud83d" }, "\ude00 tail"] } });
    expect(line).not.toMatch(LONE_ESCAPE);
    expect(JSON.parse(line)).toEqual({ params: { input: [{ text: "half \ufffd" }, "\ufffd tail"] } });
  });

  it("writes a lone surrogate in a key as U+FFFD too (a client's _meta or an MCP server's env), keeping the value", () => {
    const line = jsonLineForCodex({ params: { _meta: { "k\ud83d": "v\ud83d", fine: { "\udc00": 1 } } } });
    expect(line).not.toMatch(LONE_ESCAPE);
    expect(JSON.parse(line)).toEqual({ params: { _meta: { "k\ufffd": "v\ufffd", fine: { "\ufffd": 1 } } } });
  });

  it("fixes such keys in several objects of one message, short and long", () => {
    const line = jsonLineForCodex({ a: { "xy\ud83d": 1 }, b: { "\ud83d": 2 }, c: { "\udc00": 3 } });
    expect(line).not.toMatch(LONE_ESCAPE);
  });
});
