// The suggestion read from the model's answer to the prompt-suggestion sample (features/prompt-suggestions.ts).
import { describe, expect, it } from "vitest";
import { suggestionOf } from "../../src/features/prompt-suggestions.js";

describe("suggestionOf", () => {
  it("reads the JSON asked for, fenced or not, as one line", () => {
    expect(suggestionOf('{"suggestion":"run the tests"}')).toBe("run the tests");
    expect(suggestionOf('```json\n{"suggestion": "commit it"}\n```')).toBe("commit it");
    expect(suggestionOf('{"suggestion":"  fix the\\n  second test "}')).toBe("fix the second test");
  });

  it("is null for no suggestion, a blank one, or an answer that is not the JSON asked for", () => {
    for (const text of [
      null,
      undefined,
      "",
      '{"suggestion":null}',
      '{"suggestion":"   "}',
      "run the tests",
      '{"next":"x"}',
      '{"suggestion":3}',
      "[]",
    ]) {
      expect(suggestionOf(text), String(text)).toBeNull();
    }
  });
});
