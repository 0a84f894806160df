// Issue 4: what Codex does shows up in the editor as ACP tool calls, plans and text,
// with the exact updates asserted (real codex, fake model, SDK client).
import { afterEach, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { applyPatch, toolCall, type ScriptedResponse } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

/** Streamed output (in_progress updates carrying the output so far): how many arrive depends on timing. */
function isOutputProgress(u: acp.SessionUpdate): boolean {
  return (
    u.sessionUpdate === "tool_call_update" &&
    u.status === "in_progress" &&
    u.content?.length === 1 &&
    u.content[0]!.type === "content"
  );
}

/** Tool calls, their final updates and plans, for exact comparisons (streamed output checked apart). */
function toolUpdates(updates: acp.SessionUpdate[]): acp.SessionUpdate[] {
  const progress = updates.filter(isOutputProgress);
  for (const u of progress)
    expect(u).toMatchObject({
      sessionUpdate: "tool_call_update",
      status: "in_progress",
      content: [{ type: "content", content: { type: "text" } }],
    });
  return updates.filter(
    (u) =>
      !isOutputProgress(u) &&
      (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update" || u.sessionUpdate === "plan"),
  );
}

async function run(
  responses: ScriptedResponse[],
  opts: { extraConfig?: string; setup?: (ws: string) => Promise<void> } = {},
) {
  adapter = await startAdapter({ responses, ...(opts.extraConfig ? { extraConfig: opts.extraConfig } : {}) });
  await opts.setup?.(adapter.workspace);
  await adapter.initialize();
  const { sessionId } = await adapter.newSession();
  const result = await adapter.prompt(sessionId, "go");
  return { result, sessionId, updates: adapter.updatesOf(sessionId), ws: adapter.workspace };
}

const done = (text = "done"): ScriptedResponse => ({ items: [{ type: "message", text }] });

describe("commands", () => {
  it("a command: execute, titled with the command, output and exit code as text content", async () => {
    const { result, updates } = await run([
      { items: [toolCall("exec_command", { cmd: "echo hello; exit 3" }, { callId: "c1" })] },
      done(),
    ]);
    expect(result.stopReason).toBe("end_turn");
    expect(toolUpdates(updates)).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "c1",
        status: "in_progress",
        title: "echo hello; exit 3",
        kind: "execute",
        name: "exec_command",
        rawInput: { command: "echo hello; exit 3", cwd: expect.any(String) },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        status: "failed",
        content: [
          { type: "content", content: { type: "text", text: "hello\n" } },
          { type: "content", content: { type: "text", text: "Exit code: 3" } },
        ],
        rawOutput: { exitCode: 3, durationMs: expect.any(Number) },
      },
    ]);
  });

  it("a command Codex parses as a file read is kind read with the file's location", async () => {
    const { updates, ws } = await run(
      [{ items: [toolCall("exec_command", { cmd: "cat notes.txt" }, { callId: "r1" })] }, done()],
      {
        setup: (w) => writeFile(path.join(w, "notes.txt"), "some notes\n"),
      },
    );
    expect(toolUpdates(updates)).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "r1",
        status: "in_progress",
        title: "Read notes.txt",
        kind: "read",
        name: "exec_command",
        locations: [{ path: path.join(ws, "notes.txt") }],
        rawInput: { command: "cat notes.txt", cwd: ws },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "r1",
        status: "completed",
        content: [
          { type: "content", content: { type: "text", text: "some notes\n" } },
          { type: "content", content: { type: "text", text: "Exit code: 0" } },
        ],
        rawOutput: { exitCode: 0, durationMs: expect.any(Number) },
      },
    ]);
  });

  it("a search command is kind search", async () => {
    const { updates } = await run([
      { items: [toolCall("exec_command", { cmd: "grep -rn needle ." }, { callId: "s1" })] },
      done(),
    ]);
    expect(toolUpdates(updates)[0]).toMatchObject({
      sessionUpdate: "tool_call",
      toolCallId: "s1",
      kind: "search",
      title: expect.stringContaining("needle"),
    });
  });

  it("large output is capped per update (the tail, marked), not resent whole", async () => {
    const { updates } = await run([
      {
        items: [
          toolCall(
            "exec_command",
            { cmd: "head -c 200000 /dev/zero | tr '\\0' 'x'; echo; echo END" },
            { callId: "big" },
          ),
        ],
      },
      done(),
    ]);
    const last = toolUpdates(updates).at(-1) as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call_update" }>;
    const text = (last.content![0] as { content: { text: string } }).content.text;
    expect(text.length).toBeLessThan(40_000);
    expect(text).toMatch(/^\[\.\.\. \d+ earlier characters not shown\]\n/);
    expect(text.endsWith("END\n")).toBe(true);
  });
});

describe("patches", () => {
  it("an edit: kind edit, a full before/after diff when it starts, completed with the file's new text", async () => {
    const patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n*** End Patch";
    const { updates, ws } = await run([{ items: [applyPatch(patch, { callId: "p1" })] }, done()], {
      setup: (w) => writeFile(path.join(w, "a.txt"), "zero\none\ntwo\nthree\nfour\n"),
    });
    const file = path.join(ws, "a.txt");
    const diff = {
      type: "diff",
      path: file,
      oldText: "zero\none\ntwo\nthree\nfour\n",
      newText: "zero\none\nTWO\nthree\nfour\n",
    };
    expect(toolUpdates(updates)).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "p1",
        status: "in_progress",
        title: `Edit ${file}`,
        kind: "edit",
        name: "apply_patch",
        locations: [{ path: file }],
        rawInput: { changes: [{ path: file, kind: "update" }] },
        content: [diff],
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "p1",
        status: "completed",
        content: [diff],
        rawOutput: { status: "completed" },
      },
    ]);
    expect(await readFile(file, "utf8")).toBe("zero\none\nTWO\nthree\nfour\n");
  });

  it("a new file: oldText null", async () => {
    const { updates, ws } = await run([
      {
        items: [applyPatch("*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** End Patch", { callId: "p2" })],
      },
      done(),
    ]);
    const file = path.join(ws, "new.txt");
    expect(toolUpdates(updates)).toEqual([
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "p2",
        title: `Create ${file}`,
        kind: "edit",
        content: [{ type: "diff", path: file, oldText: null, newText: "hello\nworld\n" }],
      }),
      expect.objectContaining({
        sessionUpdate: "tool_call_update",
        toolCallId: "p2",
        status: "completed",
        content: [{ type: "diff", path: file, oldText: null, newText: "hello\nworld\n" }],
      }),
    ]);
  });
});

describe("plans, reasoning and notices", () => {
  it("update_plan -> a plan update with every entry and mapped statuses", async () => {
    const { updates } = await run(
      [
        {
          items: [
            toolCall(
              "update_plan",
              {
                plan: [
                  { step: "read", status: "completed" },
                  { step: "edit", status: "in_progress" },
                  { step: "test", status: "pending" },
                ],
              },
              { callId: "plan1" },
            ),
          ],
        },
        done(),
      ],
      { extraConfig: "[tools.update_plan]\nenabled = true" },
    );
    expect(updates.filter((u) => u.sessionUpdate === "plan")).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "read", priority: "medium", status: "completed" },
          { content: "edit", priority: "medium", status: "in_progress" },
          { content: "test", priority: "medium", status: "pending" },
        ],
      },
    ]);
  });
});
