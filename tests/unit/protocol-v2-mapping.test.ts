// The v1 -> v2 mapping of session updates and shapes (src/protocol-v2), one module at a time:
// what a v2 client gets for each thing the v1 core says.
import { describe, expect, it } from "vitest";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { SessionUpdateMapper } from "../../src/protocol-v2/updates.js";
import { toV2Diff } from "../../src/protocol-v2/diffs.js";
import { toV2Permission } from "../../src/protocol-v2/permissions.js";
import {
  toV1ClientCapabilities,
  toV1SetConfigOption,
  toV2Commands,
  toV2ConfigOptions,
  toV1McpServers,
} from "../../src/protocol-v2/shapes.js";

describe("session updates to v2", () => {
  it("a command's terminal card becomes an agent-owned terminal: begun before the tool call, output as base64 chunks, the exit after", () => {
    const m = new SessionUpdateMapper();
    const begin = m.map({
      sessionUpdate: "tool_call",
      toolCallId: "t1",
      title: "ls",
      kind: "execute",
      status: "in_progress",
      rawInput: { command: "ls -la", cwd: "/w" },
      content: [{ type: "terminal", terminalId: "t1" }],
      _meta: { terminal_info: { terminal_id: "t1", cwd: "/w" } },
    });
    expect(begin).toEqual([
      { sessionUpdate: "terminal_update", terminalId: "t1", command: "ls -la", cwd: "/w" },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        title: "ls",
        kind: "execute",
        status: "in_progress",
        rawInput: { command: "ls -la", cwd: "/w" },
        content: [{ type: "terminal", terminalId: "t1" }],
      },
    ]);
    expect(
      m.map({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        _meta: { terminal_output: { terminal_id: "t1", data: "héllo\n" } },
      }),
    ).toEqual([
      { sessionUpdate: "terminal_output_chunk", terminalId: "t1", data: Buffer.from("héllo\n").toString("base64") },
    ]);
    expect(
      m.map({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "completed",
        _meta: { terminal_exit: { terminal_id: "t1", exit_code: 2, signal: null } },
      }),
    ).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" },
      { sessionUpdate: "terminal_update", terminalId: "t1", exitStatus: { exitCode: 2, signal: null } },
    ]);
  });

  it("a chunk without a message id starts its own message; in a replay each message first begins empty", () => {
    const m = new SessionUpdateMapper();
    const [notice] = m.map({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "note" } });
    expect(notice).toMatchObject({ sessionUpdate: "agent_message_chunk", messageId: expect.any(String) });
    m.replaying(true);
    const replay = [
      ...m.map({ sessionUpdate: "user_message_chunk", messageId: "u1", content: { type: "text", text: "a" } }),
      ...m.map({ sessionUpdate: "user_message_chunk", messageId: "u1", content: { type: "text", text: "b" } }),
    ];
    expect(replay.map((u) => u.sessionUpdate)).toEqual(["user_message", "user_message_chunk", "user_message_chunk"]);
    m.replaying(false);
    expect(
      m.map({ sessionUpdate: "agent_thought_chunk", messageId: "x", content: { type: "text", text: "t" } }),
    ).toHaveLength(1);
  });

  it("the plan is a plan_update of items, the mode's own update is dropped (it is a config option), commands are tagged", () => {
    const m = new SessionUpdateMapper();
    expect(m.map({ sessionUpdate: "plan", entries: [{ content: "a", priority: "high", status: "pending" }] })).toEqual([
      {
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "plan", entries: [{ content: "a", priority: "high", status: "pending" }] },
      },
    ]);
    expect(m.map({ sessionUpdate: "current_mode_update", currentModeId: "auto" })).toEqual([]);
    expect(
      toV2Commands([
        { name: "review", description: "d", input: { hint: "what" } },
        { name: "status", description: "s" },
      ]),
    ).toEqual([
      { type: "command", name: "review", description: "d", input: { type: "text", hint: "what" } },
      { type: "command", name: "status", description: "s" },
    ]);
  });
});

describe("diffs as file states", () => {
  it("add, modify, delete (from the card's kind) and move (from its two locations), each with a git patch", () => {
    expect(toV2Diff({ type: "diff", path: "/w/new.txt", oldText: null, newText: "x\n" }, {})).toMatchObject({
      changes: [{ operation: "add", path: "/w/new.txt" }],
      patch: {
        format: "git_patch",
        text: expect.stringContaining("new file mode 100644\n--- /dev/null\n+++ b/w/new.txt\n@@ -0,0 +1,1 @@\n+x"),
      },
    });
    const modify = toV2Diff({ type: "diff", path: "/w/a.txt", oldText: "1\n2\n", newText: "1\n3\n" }, { kind: "edit" });
    expect(modify.changes).toEqual([{ operation: "modify", path: "/w/a.txt" }]);
    expect(modify.patch?.text).toMatch(
      /^diff --git a\/w\/a.txt b\/w\/a.txt\n--- a\/w\/a.txt\n\+\+\+ b\/w\/a.txt\n@@ -1,2 \+1,2 @@\n 1\n-2\n\+3\n$/,
    );
    expect(
      toV2Diff({ type: "diff", path: "/w/gone.txt", oldText: "bye\n", newText: "" }, { kind: "delete" }),
    ).toMatchObject({
      changes: [{ operation: "delete", path: "/w/gone.txt" }],
      patch: { text: expect.stringContaining("deleted file mode 100644") },
    });
    // An emptied file is not a deleted one.
    expect(toV2Diff({ type: "diff", path: "/w/e.txt", oldText: "x", newText: "" }, { kind: "edit" }).changes).toEqual([
      { operation: "modify", path: "/w/e.txt" },
    ]);
    expect(
      toV2Diff(
        { type: "diff", path: "/w/to.txt", oldText: "m\n", newText: "m\n" },
        { kind: "move", from: "/w/from.txt" },
      ),
    ).toMatchObject({
      changes: [{ operation: "move", oldPath: "/w/from.txt", path: "/w/to.txt" }],
      patch: { text: expect.stringContaining("rename from w/from.txt\nrename to w/to.txt") },
    });
  });
});

describe("a patch of several files (Codex's fileChange card lists each file in rawInput)", () => {
  const rawInput = {
    changes: [
      { path: "/w/new.txt", kind: "add" },
      { path: "/w/a.txt", kind: "update" },
      { path: "/w/gone.js", kind: "delete" },
      { path: "/w/README.md", kind: "update", movePath: "/w/moved/README.md" },
    ],
  };
  const diffs = [
    { type: "diff" as const, path: "/w/new.txt", oldText: null, newText: "n\n" },
    { type: "diff" as const, path: "/w/a.txt", oldText: "1\n", newText: "2\n" },
    { type: "diff" as const, path: "/w/gone.js", oldText: "x\n", newText: "" },
    { type: "diff" as const, path: "/w/moved/README.md", oldText: "# r\n", newText: "# r\nm\n" },
  ];
  const expected = [
    { operation: "add", path: "/w/new.txt" },
    { operation: "modify", path: "/w/a.txt" },
    { operation: "delete", path: "/w/gone.js" },
    { operation: "move", oldPath: "/w/README.md", path: "/w/moved/README.md" },
  ];
  const changesOf = (update: v2.SessionUpdate | undefined): unknown[] =>
    update && "content" in update && Array.isArray(update.content)
      ? update.content.flatMap((c: v2.ToolCallContent) => (c.type === "diff" ? c.changes : []))
      : [];
  const card = {
    sessionUpdate: "tool_call" as const,
    toolCallId: "p",
    title: "Edit 4 files",
    kind: "edit" as const,
    status: "in_progress" as const,
    locations: [
      { path: "/w/new.txt" },
      { path: "/w/a.txt" },
      { path: "/w/gone.js" },
      { path: "/w/README.md" },
      { path: "/w/moved/README.md" },
    ],
    rawInput,
    content: diffs,
  };

  it("each file's operation (a delete as delete, a move with its oldPath) on the card, in the permission's subject and on the completed update", () => {
    const m = new SessionUpdateMapper();
    expect(changesOf(m.map(card)[0])).toEqual(expected);
    // The permission names the card without its rawInput: the operations are the ones the card listed.
    const asked = toV2Permission(
      {
        sessionId: "s",
        toolCall: { toolCallId: "p", title: "Edit 4 files", kind: "edit", status: "pending", content: diffs },
        options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
      },
      m,
    );
    expect(asked.title).toBe("Edit 4 files");
    const subject =
      asked.subject?.type === "tool_call" && "toolCall" in asked.subject
        ? (asked.subject.toolCall as v2.SessionUpdate)
        : undefined;
    expect(changesOf(subject)).toEqual(expected);
    type Diff = Extract<v2.ToolCallContent, { type: "diff" }>;
    const patches =
      subject && "content" in subject && Array.isArray(subject.content)
        ? subject.content.map((c: v2.ToolCallContent) => (c.type === "diff" ? ((c as Diff).patch?.text ?? "") : ""))
        : [];
    expect(patches[2]).toContain("deleted file mode 100644");
    expect(patches[3]).toContain("rename from w/README.md\nrename to w/moved/README.md");
    expect(
      changesOf(m.map({ sessionUpdate: "tool_call_update", toolCallId: "p", status: "completed", content: diffs })[0]),
    ).toEqual(expected);
  });

  it("a permission without content carries the changes the card showed; a new turn's call of the same id starts afresh", () => {
    const m = new SessionUpdateMapper();
    m.map(card);
    const asked = toV2Permission(
      { sessionId: "s", toolCall: { toolCallId: "p", title: "Edit 4 files" }, options: [] },
      m,
    );
    expect(
      changesOf(
        asked.subject?.type === "tool_call" && "toolCall" in asked.subject
          ? (asked.subject.toolCall as v2.SessionUpdate)
          : undefined,
      ),
    ).toEqual(expected);
    m.forgetToolCalls();
    // Without a list (another card), the diff alone says it: an emptied file is modified.
    expect(
      changesOf(m.map({ sessionUpdate: "tool_call_update", toolCallId: "p", kind: "edit", content: [diffs[2]!] })[0]),
    ).toEqual([{ operation: "modify", path: "/w/gone.js" }]);
  });
});

describe("shapes", () => {
  it("config options say configId and groupId; a set request of an unknown value type is refused", () => {
    expect(
      toV2ConfigOptions([
        {
          id: "model",
          name: "Model",
          type: "select",
          currentValue: "a",
          options: [{ group: "g", name: "G", options: [{ value: "a", name: "A" }] }],
        },
      ]),
    ).toEqual([
      {
        configId: "model",
        name: "Model",
        type: "select",
        currentValue: "a",
        options: [{ groupId: "g", name: "G", options: [{ value: "a", name: "A" }] }],
      },
    ]);
    expect(toV1SetConfigOption({ sessionId: "s", configId: "mode", type: "id", value: "auto" })).toEqual({
      sessionId: "s",
      configId: "mode",
      value: "auto",
    });
    expect(toV1SetConfigOption({ sessionId: "s", configId: "fast", type: "boolean", value: true })).toEqual({
      sessionId: "s",
      configId: "fast",
      type: "boolean",
      value: true,
    });
    expect(() => toV1SetConfigOption({ sessionId: "s", configId: "mode", type: "id", value: 3 } as never)).toThrow(
      /not supported/,
    );
  });

  it("the core is told Zed's terminal convention whatever the v2 client's _meta says: the other convention's output has no v2 form", () => {
    expect(
      toV1ClientCapabilities({ _meta: { terminal_output_delta: true, terminal_output: false, other: 1 } })._meta,
    ).toEqual({ other: 1, terminal_output: true, terminal_output_delta: false });
  });

  it("a v2 stdio server loses its tag and gets v1's required lists", () => {
    expect(toV1McpServers([{ type: "stdio", name: "x", command: "/bin/x" }])).toEqual([
      { name: "x", command: "/bin/x", args: [], env: [] },
    ]);
  });
});
