// toRequestError: what a client reads when Codex stopped under a request that was not a turn
// (session/list, a load): not the turn's wording ("during this turn", "send a prompt again").
import { describe, expect, it } from "vitest";
import { CodexExitedError, CodexRpcError } from "../../src/codex/index.js";
import { childDiedMessage, toRequestError } from "../../src/core/errors.js";

describe("toRequestError", () => {
  it("a codex that stopped under a request says so, and to try again, without speaking of a turn", () => {
    const err = toRequestError(
      new CodexExitedError({ code: null, signal: "SIGKILL", reason: "codex stopped responding (nothing for 2 s)" }),
    );
    expect(err.code).toBe(-32603);
    expect(err.message).toContain("codex stopped responding (nothing for 2 s)");
    expect(err.message).toMatch(/try again/i);
    expect(err.message).not.toContain("turn");
    expect(err.message).not.toContain("prompt");
  });

  it("the turn's own wording stays for a turn", () => {
    expect(childDiedMessage("exited with code 1")).toMatch(/during this turn.*send a prompt again/);
  });

  it("Codex's own errors keep their message", () => {
    expect(toRequestError(new CodexRpcError("thread not found", -32600)).message).toBe("Codex: thread not found");
  });
});

describe("shown: a client's value as an error quotes it", () => {
  it("keeps a short value whole, cuts a long one to 120 characters saying how long it was, and never cuts an emoji in half", async () => {
    const { shown } = await import("../../src/core/errors.js");
    expect(shown("auto")).toBe("auto");
    const cut = shown(`${"x".repeat(119)}\u{1F600}${"y".repeat(500)}`);
    expect(cut).toBe(`${"x".repeat(119)}… (621 characters)`);
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
