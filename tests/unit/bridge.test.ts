import { describe, expect, it } from "vitest";
import { addedFileText, applyUnifiedDiff } from "../../src/bridge/diff.js";
import { OUTPUT_TAIL_CHARS, describeCommand, displayCommand, outputTail } from "../../src/bridge/commands.js";
import { completedItemUpdate, mcpToolKind } from "../../src/bridge/items.js";
import { note, toolItem } from "../support/codex-messages.js";
import { ThreadEventTranslator } from "../../src/bridge/translator.js";

describe("unified diffs", () => {
  it("applies hunks to the old text, keeping untouched lines", () => {
    expect(applyUnifiedDiff("a\nb\nc\nd\n", "@@ -2,2 +2,2 @@\n b\n-c\n+C\n")).toBe("a\nb\nC\nd\n");
    expect(applyUnifiedDiff("x\n", "@@ -1 +1,2 @@\n x\n+y\n")).toBe("x\ny\n");
    expect(applyUnifiedDiff("a\n", "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n")).toBe("b");
  });
  it("refuses a diff that does not fit", () => {
    expect(applyUnifiedDiff("a\n", "@@ -1 +1 @@\n-z\n+b\n")).toBeUndefined();
  });
  it("added files: plain content or + lines", () => {
    expect(addedFileText("hi\n")).toBe("hi\n");
    expect(addedFileText("@@ -0,0 +1,2 @@\n+a\n+b\n")).toBe("a\nb\n");
  });
});

describe("commands", () => {
  it("shows the command the model wrote, not the shell wrapper", () => {
    expect(displayCommand("/bin/bash -lc 'echo hi'")).toBe("echo hi");
    expect(displayCommand("/bin/bash -lc 'echo '\\''q'\\'''")).toBe("echo 'q'");
    expect(displayCommand("ls -la")).toBe("ls -la");
  });
  it("on Windows too: PowerShell's and cmd.exe's wrappers (Codex runs commands with -NoProfile -Command, or /c), wherever the shell lives", () => {
    expect(
      displayCommand(
        "'C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe' -NoProfile -Command 'Get-ChildItem -Force'",
      ),
    ).toBe("Get-ChildItem -Force");
    expect(displayCommand("pwsh.exe -NoProfile -Command 'Write-Output '\\''hi'\\'''")).toBe("Write-Output 'hi'");
    expect(displayCommand('"C:\\Program Files\\PowerShell\\7\\pwsh.exe" -Command "dir \\"a b\\""')).toBe('dir "a b"');
    expect(displayCommand("powershell -Command dir")).toBe("dir");
    expect(displayCommand("C:\\Windows\\system32\\cmd.exe /c 'dir /b'")).toBe("dir /b");
    expect(displayCommand("cmd /c dir")).toBe("dir");
    // Not a wrapper: shown as it is.
    expect(displayCommand("powershell.exe -File build.ps1")).toBe("powershell.exe -File build.ps1");
    expect(displayCommand("pwsh -Command 'a' 'b'")).toBe("pwsh -Command 'a' 'b'");
    expect(displayCommand("mycmd /c dir")).toBe("mycmd /c dir");
  });
  it("kinds from parsed actions", () => {
    expect(describeCommand("cat a", "/w", [{ type: "read", command: "cat a", name: "a", path: "a" }])).toMatchObject({
      kind: "read",
      title: "Read a",
      locations: [{ path: "/w/a" }],
    });
    expect(describeCommand("rg x", "/w", [{ type: "search", command: "rg x", query: "x", path: "src" }])).toMatchObject(
      { kind: "search", title: 'Search "x" in src' },
    );
    expect(describeCommand("make", "/w", [{ type: "unknown", command: "make" }])).toMatchObject({
      kind: "execute",
      title: "make",
    });
  });
  it("caps output to its tail", () => {
    const out = outputTail("x".repeat(100), 10);
    expect(out).toBe("[... 90 earlier characters not shown]\nxxxxxxxxxx");
  });
  it("marks a cut in ASCII, so an ASCII output's update stays one byte per character", () => {
    // V8 keeps a string of Latin-1 characters at one byte each; one character past that (the "…"
    // once used here) makes the whole update, and every batch of stdout it is joined into, two
    // bytes each, and slower to stringify and encode: a 300 MB session/load took 0.4-0.8 s more CPU.
    const ascii = /^[\x00-\x7f]*$/;
    expect(outputTail("x".repeat(100), 10)).toMatch(ascii);
    let now = 0;
    const t = new ThreadEventTranslator({ now: () => (now += 1000) });
    t.translate(
      note("item/started", {
        item: { type: "commandExecution", id: "c", command: "yes", cwd: "/", commandActions: [], status: "inProgress" },
      }),
    );
    const updates = [0, 1].flatMap(() =>
      t.translate(note("item/commandExecution/outputDelta", { itemId: "c", delta: "y".repeat(OUTPUT_TAIL_CHARS) })),
    );
    const texts = updates.map((u) => JSON.stringify(u));
    expect(texts.at(-1)).toContain("earlier characters not shown");
    for (const text of texts) expect(text).toMatch(ascii);
  });
  it("streams output deltas as the tail, at a bounded rate", () => {
    let now = 1000;
    const t = new ThreadEventTranslator({ now: () => now });
    t.translate(
      note("item/started", {
        item: { type: "commandExecution", id: "c", command: "yes", cwd: "/", commandActions: [], status: "inProgress" },
      }),
    );
    const first = t.translate(note("item/commandExecution/outputDelta", { itemId: "c", delta: "a" }));
    expect(first).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c",
        status: "in_progress",
        content: [{ type: "content", content: { type: "text", text: "a" } }],
      },
    ]);
    expect(t.translate(note("item/commandExecution/outputDelta", { itemId: "c", delta: "b" }))).toEqual([]);
    now += 200;
    expect(t.translate(note("item/commandExecution/outputDelta", { itemId: "c", delta: "c" }))).toMatchObject([
      { content: [{ content: { text: "abc" } }] },
    ]);
  });
  it("a declined command says so", () => {
    expect(
      completedItemUpdate(
        toolItem({ type: "commandExecution", id: "c", status: "declined", aggregatedOutput: null, exitCode: null }),
        undefined,
      ),
    ).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Not run: the command was rejected." } }],
      rawOutput: { exitCode: null },
    });
  });
});

describe("MCP tool kinds", () => {
  it("guesses from the read-only hint and the name", () => {
    expect(mcpToolKind("search_issues", null)).toBe("search");
    expect(mcpToolKind("fetch_url", null)).toBe("fetch");
    expect(mcpToolKind("lookup_word", true)).toBe("read");
    expect(mcpToolKind("get_user", null)).toBe("read");
    expect(mcpToolKind("delete_branch", false)).toBe("delete");
    expect(mcpToolKind("save_note", false)).toBe("edit");
    expect(mcpToolKind("launch", null)).toBe("other");
  });
});

describe("notices and plans", () => {
  it("retried errors are visible text; final errors are left to the prompt; warnings are left to acp/codex-warnings", () => {
    const t = new ThreadEventTranslator();
    expect(t.translate(note("warning", { threadId: "t", message: "disk low" }))).toEqual([]);
    expect(t.translate(note("error", { willRetry: true, error: { message: "stream dropped" } }))).toHaveLength(1);
    expect(t.translate(note("error", { willRetry: false, error: { message: "fatal" } }))).toEqual([]);
  });
});

describe("goals", () => {
  const goal = (status: string, objective = "Ship it", tokensUsed = 0) => ({
    threadId: "t",
    objective,
    status,
    tokenBudget: null,
    tokensUsed,
    timeUsedSeconds: 0,
    createdAt: 1,
    updatedAt: 1,
  });
  it("a change Codex makes in a turn is a notice; a client's change (no turn) and Codex's accounting are not shown; a clear forgets the goal", () => {
    const t = new ThreadEventTranslator({ display: () => ({ notices: true }) });
    expect(t.translate(note("thread/goal/updated", { threadId: "t", turnId: null, goal: goal("active") }))).toEqual([]);
    expect(
      t.translate(note("thread/goal/updated", { threadId: "t", turnId: "u1", goal: goal("active", "Ship it", 110) })),
    ).toEqual([]);
    expect(t.translate(note("thread/goal/updated", { threadId: "t", turnId: "u1", goal: goal("complete") }))).toEqual([
      { sessionUpdate: "notice", severity: "info", title: "Goal complete", description: "Ship it" },
    ]);
    expect(
      t.translate(note("thread/goal/updated", { threadId: "t", turnId: "u2", goal: goal("budgetLimited") })),
    ).toEqual([
      {
        sessionUpdate: "notice",
        severity: "warning",
        title: "Goal stopped at its token budget",
        description: "Ship it",
      },
    ]);
    expect(t.translate(note("thread/goal/cleared", { threadId: "t" }))).toEqual([]);
    // After a clear (or in a session loaded with a goal), the first goal Codex reports is shown.
    expect(
      t.translate(note("thread/goal/updated", { threadId: "t", turnId: "u3", goal: goal("active", "Next") })),
    ).toHaveLength(1);
  });

  it("without notices, Codex's change of the goal is a finished card", () => {
    const t = new ThreadEventTranslator();
    expect(t.translate(note("thread/goal/updated", { threadId: "t", turnId: "u1", goal: goal("blocked") }))).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: expect.stringMatching(/^notice-/),
        title: "Warning: Goal blocked",
        kind: "other",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "Ship it" } }],
      },
    ]);
  });
});
