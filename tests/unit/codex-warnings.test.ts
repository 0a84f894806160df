// Which of Codex's notifications are warnings for the user, and whether they belong to a thread.
import { describe, expect, it } from "vitest";
import { warningIn } from "../../src/features/codex-warnings.js";

describe("Codex's warnings", () => {
  it("a deprecation names no thread: it is global, shown once like a config warning", () => {
    expect(warningIn("deprecationNotice", { summary: "`[tools] web_search` is deprecated.", details: "Use `web_search = \"live\"`." })).toEqual({
      threadId: null,
      warning: { text: "`[tools] web_search` is deprecated.", title: "Deprecated: `[tools] web_search` is deprecated.", description: 'Use `web_search = "live"`.' },
    });
  });
  it("a config warning keeps Codex's text (what a thread's warning repeats) and names the file", () => {
    expect(warningIn("configWarning", { summary: "Invalid configuration; using defaults.", details: "config.toml:25:2: duplicate key", path: "/h/config.toml" })).toEqual({
      threadId: null,
      warning: { text: "Invalid configuration; using defaults.", title: "Codex configuration: Invalid configuration; using defaults.", description: "config.toml:25:2: duplicate key\n(/h/config.toml)" },
    });
  });
  it("a warning belongs to its thread when it names one; other methods and bad shapes are not warnings", () => {
    expect(warningIn("warning", { threadId: "t1", message: "disk low" })).toMatchObject({ threadId: "t1", warning: { text: "disk low" } });
    expect(warningIn("warning", { threadId: null, message: "disk low" })).toMatchObject({ threadId: null });
    expect(warningIn("warning", { message: 3 })).toBeUndefined();
    expect(warningIn("item/started", { summary: "x" })).toBeUndefined();
  });
});
