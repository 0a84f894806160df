// Which of Codex's notifications are warnings for the user, and whether they belong to a thread.
import { describe, expect, it } from "vitest";
import { asksNothing, warningIn } from "../../src/features/codex-warnings.js";

describe("Codex's warnings", () => {
  it("a deprecation names no thread: it is global, shown once like a config warning", () => {
    expect(
      warningIn("deprecationNotice", {
        summary: "`[tools] web_search` is deprecated.",
        details: 'Use `web_search = "live"`.',
      }),
    ).toEqual({
      threadId: null,
      warning: {
        text: "`[tools] web_search` is deprecated.",
        title: "Deprecated: `[tools] web_search` is deprecated.",
        description: 'Use `web_search = "live"`.',
      },
    });
  });
  it("a config warning keeps Codex's text (what a thread's warning repeats) and names the file", () => {
    expect(
      warningIn("configWarning", {
        summary: "Invalid configuration; using defaults.",
        details: "config.toml:25:2: duplicate key",
        path: "/h/config.toml",
      }),
    ).toEqual({
      threadId: null,
      warning: {
        text: "Invalid configuration; using defaults.",
        title: "Codex configuration: Invalid configuration; using defaults.",
        description: "config.toml:25:2: duplicate key\n(/h/config.toml)",
      },
    });
  });
  it("a warning belongs to its thread when it names one; other methods and bad shapes are not warnings", () => {
    expect(warningIn("warning", { threadId: "t1", message: "disk low" })).toMatchObject({
      threadId: "t1",
      warning: { text: "disk low" },
    });
    expect(warningIn("warning", { threadId: null, message: "disk low" })).toMatchObject({ threadId: null });
    expect(warningIn("warning", { message: 3 })).toBeUndefined();
    expect(warningIn("item/started", { summary: "x" })).toBeUndefined();
  });
  it("Codex's notice that it uses its bundled bubblewrap asks nothing of the user (logged, not shown); other warnings do", () => {
    // Codex 0.13x's words, then variants a later Codex may use.
    for (const text of [
      "Codex could not find bubblewrap on PATH. Install bubblewrap with your OS package manager. See the sandbox prerequisites: https://developers.openai.com/codex/concepts/sandboxing#prerequisites. Codex will use the bundled bubblewrap in the meantime.",
      "Could not find system bwrap on PATH; Codex will use its bundled bubblewrap.",
      "Bubblewrap (bwrap) is not installed: using the vendored copy bundled with Codex.",
    ]) {
      for (const [method, params] of [
        ["configWarning", { summary: text }],
        ["warning", { threadId: null, message: text }],
        ["warning", { threadId: "t1", message: text }],
      ] as const) {
        const heard = warningIn(method, params);
        expect(heard && asksNothing(heard.warning), `${method}: ${text}`).toBe(true);
      }
    }
    // Not a notice that all is well: a sandbox that cannot run, or another warning.
    for (const text of [
      "bubblewrap failed: no permission to create a user namespace; commands run without the sandbox",
      "Invalid configuration; using defaults.",
      "Codex will use the bundled ripgrep",
    ]) {
      const heard = warningIn("configWarning", { summary: text });
      expect(heard && asksNothing(heard.warning), text).toBe(false);
    }
  });
});
