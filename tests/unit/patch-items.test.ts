// How patches look to the client: our apply_patch items (live and replayed), and Codex's native
// apply_patch rejected before it became an item (seen only in the raw response items).
import { describe, expect, it } from "vitest";
import { completeFileToolItem } from "../../src/bridge/file-tools.js";
import { describeItem } from "../../src/bridge/items.js";
import type { ItemOf } from "../../src/bridge/view.js";
import { replayTurns } from "../../src/bridge/history.js";
import { ThreadEventTranslator } from "../../src/bridge/translator.js";
import { DIFF_META_KEY, FILE_TOOLS_SERVER } from "../../src/editor-files/contract/index.js";
import { mcpItem, note, toolItem } from "../support/codex-messages.js";

const patch = (...body: string[]): string => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
const patchItem = (input: string, extra: Record<string, unknown> = {}): ItemOf<"mcpToolCall"> =>
  mcpItem({ id: "call_p", server: FILE_TOOLS_SERVER, tool: "apply_patch", arguments: { input }, ...extra });

describe("our apply_patch items", () => {
  it("title, kind and every location, relative paths resolved against the session's cwd", () => {
    const view = describeItem(
      patchItem(patch("*** Update File: src/a.ts", "*** Move to: src/b.ts", "@@", "-x", "+y")),
      undefined,
      { cwd: "/ws" },
    );
    expect(view).toEqual({
      name: "apply_patch",
      title: "Move /ws/src/a.ts to /ws/src/b.ts",
      kind: "move",
      locations: [{ path: "/ws/src/a.ts" }, { path: "/ws/src/b.ts" }],
      rawInput: { input: expect.stringContaining("*** Move to") },
    });
    expect(describeItem(patchItem("not a patch"), undefined, { cwd: "/ws" })).toMatchObject({
      title: "Apply patch",
      kind: "edit",
      locations: [],
    });
  });

  it("the final update carries one diff per file from the result's _meta; an error result fails with its message", () => {
    const diffs = [
      { path: "/ws/a", oldText: "1\n", newText: "2\n" },
      { path: "/ws/gone", oldText: "x\n", newText: "" },
    ];
    const done = completeFileToolItem(
      patchItem("", {
        status: "completed",
        result: { content: [], structuredContent: { success: true, files: [] }, _meta: { [DIFF_META_KEY]: diffs } },
      }),
    );
    expect(done).toMatchObject({ status: "completed", content: diffs.map((d) => ({ type: "diff", ...d })) });
    const failed = completeFileToolItem(
      patchItem("", {
        status: "completed",
        result: {
          isError: true,
          content: [{ type: "text", text: "nope" }],
          structuredContent: { code: -32006, message: "nope" },
        },
      }),
    );
    expect(failed).toMatchObject({
      status: "failed",
      rawOutput: { code: -32006, message: "nope" },
      content: [{ type: "content", content: { type: "text", text: "nope" } }],
    });
  });

  it("history replay shows the same call with its diffs", () => {
    const item = patchItem(patch("*** Add File: n.txt", "+n"), {
      status: "completed",
      result: {
        structuredContent: { success: true, files: [] },
        _meta: { [DIFF_META_KEY]: [{ path: "/ws/n.txt", oldText: null, newText: "n\n" }] },
      },
    });
    const updates = replayTurns([{ id: "t1", status: "completed", items: [item] }], { cwd: "/ws" });
    expect(updates).toEqual([
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "call_p",
        title: "Create /ws/n.txt",
        kind: "edit",
        status: "completed",
        content: [{ type: "diff", path: "/ws/n.txt", oldText: null, newText: "n\n" }],
      }),
    ]);
  });
});

describe("Codex's native apply_patch items (fileChange)", () => {
  // Codex writes a move's diff as its hunks, then "\n\nMoved to: <target>" (codex-rs app-server).
  const moveChange = {
    path: "/ws/README.md",
    kind: { type: "update", move_path: "/ws/moved/README.md" },
    diff: "@@ -1 +1,2 @@\n # readme\n+moved\n\n\nMoved to: /ws/moved/README.md",
  };
  const before = new Map<string, string | null>([
    ["/ws/README.md", "# readme\n"],
    ["/ws/gone.js", "x\n"],
  ]);

  it("a move is asked with its diff (source's text to the target's, before it is written) and titled with both paths", () => {
    const view = describeItem(
      toolItem({ type: "fileChange", id: "m", status: "inProgress", changes: [moveChange] }),
      before,
    );
    expect(view).toMatchObject({
      title: "Move /ws/README.md to /ws/moved/README.md",
      kind: "move",
      locations: [{ path: "/ws/README.md" }, { path: "/ws/moved/README.md" }],
    });
    expect(view.content).toEqual([
      { type: "diff", path: "/ws/moved/README.md", oldText: "# readme\n", newText: "# readme\nmoved\n" },
    ]);
  });

  it("a patch of several files shows every file's diff before it is written, and lists each file's operation", () => {
    const changes = [
      { path: "/ws/new.txt", kind: { type: "add" }, diff: "new\n" },
      { path: "/ws/gone.js", kind: { type: "delete" }, diff: "x\n" },
      moveChange,
    ];
    const view = describeItem(toolItem({ type: "fileChange", id: "p", status: "inProgress", changes }), before);
    expect(view).toMatchObject({ title: "Edit 3 files", kind: "edit" });
    expect(view.content).toEqual([
      { type: "diff", path: "/ws/new.txt", oldText: null, newText: "new\n" },
      { type: "diff", path: "/ws/gone.js", oldText: "x\n", newText: "" },
      { type: "diff", path: "/ws/moved/README.md", oldText: "# readme\n", newText: "# readme\nmoved\n" },
    ]);
    expect(view.rawInput).toEqual({
      changes: [
        { path: "/ws/new.txt", kind: "add" },
        { path: "/ws/gone.js", kind: "delete" },
        { path: "/ws/README.md", kind: "update", movePath: "/ws/moved/README.md" },
      ],
    });
  });
});

describe("Codex's native apply_patch, rejected before it became an item", () => {
  const raw = (item: Record<string, unknown>): Record<string, unknown> => ({ threadId: "t", turnId: "u", item });
  const input = patch("*** Update File: a.txt", "@@", "-two", "+three");

  it("is shown as one failed tool call when its output arrives", () => {
    const t = new ThreadEventTranslator({ cwd: () => "/ws" });
    expect(
      t.translate(
        note("rawResponseItem/completed", raw({ type: "custom_tool_call", call_id: "c1", name: "apply_patch", input })),
      ),
    ).toEqual([]);
    const out = t.translate(
      note(
        "rawResponseItem/completed",
        raw({
          type: "custom_tool_call_output",
          call_id: "c1",
          output: "apply_patch verification failed: Failed to find expected lines",
        }),
      ),
    );
    expect(out).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "c1",
        status: "failed",
        title: "Edit /ws/a.txt",
        kind: "edit",
        locations: [{ path: "/ws/a.txt" }],
        rawInput: { input },
        content: [
          {
            type: "content",
            content: { type: "text", text: "apply_patch verification failed: Failed to find expected lines" },
          },
        ],
        rawOutput: { output: "apply_patch verification failed: Failed to find expected lines" },
      },
    ]);
  });

  it("is left alone when it ran as an item (a fileChange with the call's id), and other tools are ignored", () => {
    const t = new ThreadEventTranslator({ cwd: () => "/ws" });
    t.translate(
      note(
        "rawResponseItem/completed",
        raw({ type: "function_call", call_id: "c2", name: "apply_patch", arguments: JSON.stringify({ input }) }),
      ),
    );
    t.translate(note("item/started", { item: { type: "fileChange", id: "c2", changes: [], status: "inProgress" } }));
    expect(
      t.translate(
        note("rawResponseItem/completed", raw({ type: "function_call_output", call_id: "c2", output: "ok" })),
      ),
    ).toEqual([]);
    t.translate(
      note(
        "rawResponseItem/completed",
        raw({ type: "function_call", call_id: "c3", name: "apply_patch", namespace: "mcp__acp_fs", arguments: "{}" }),
      ),
    );
    expect(
      t.translate(note("rawResponseItem/completed", raw({ type: "function_call_output", call_id: "c3", output: "x" }))),
    ).toEqual([]);
    expect(
      t.translate(note("rawResponseItem/completed", raw({ type: "message", role: "developer", content: [] }))),
    ).toEqual([]);
  });
});
