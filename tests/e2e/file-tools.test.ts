// Issue 3 end to end: the embedded MCP file tools with the real codex binary and the fake model.
// The model calls mcp__acp_fs/read_text_file and write_text_file; the calls reach the editor
// (fs/* requests) when it has the capability, the disk otherwise; the client sees one tool call
// per call; writes outside the workspace ask once.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse, toolCallResponse } from "../../tools/fake-model/index.js";
import { killCodex, startAdapter, type Adapter } from "../support/adapter.js";
import { waitFor } from "../support/wait-for.js";
import { neverAnswer, type Unanswered } from "../support/unanswered.js";

const NS = "mcp__acp_fs";
let adapter: Adapter | undefined;
const cleanup: string[] = [];

afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  for (const p of cleanup.splice(0))
    await import("node:fs/promises").then((f) => f.rm(p, { recursive: true, force: true }));
});

type ToolCall = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>;
type ToolUpdate = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call_update" }>;

function toolEvents(
  updates: acp.SessionUpdate[],
  id: string,
): { calls: ToolCall[]; finals: ToolUpdate[]; all: acp.SessionUpdate[] } {
  const all = updates.filter(
    (u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id,
  );
  return {
    all,
    calls: all.filter((u): u is ToolCall => u.sessionUpdate === "tool_call"),
    finals: all.filter(
      (u): u is ToolUpdate =>
        u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed"),
    ),
  };
}

/** What the model was shown as the output of `callId` in its next request. */
function outputFor(adapter: Adapter, callId: string): string {
  for (const r of adapter.fake.requests) {
    for (const item of (r.body?.input ?? []) as Array<{ type: string; call_id?: string; output?: unknown }>) {
      if (item.type === "function_call_output" && item.call_id === callId)
        return typeof item.output === "string" ? item.output : JSON.stringify(item.output);
    }
  }
  throw new Error(`no output for ${callId}`);
}

type Editor = {
  reads: acp.ReadTextFileRequest[];
  writes: acp.WriteTextFileRequest[];
  permissions: acp.RequestPermissionRequest[];
  buffers: Map<string, string>;
  answer: string | "cancelled";
};

function editorClient(ed: Editor): (app: acp.ClientApp) => void {
  return (app) => {
    app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      ed.reads.push(params);
      const text = ed.buffers.get(params.path);
      if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
      const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
      const start = (params.line ?? 1) - 1;
      return { content: lines.slice(start, params.limit == null ? undefined : start + params.limit).join("") };
    });
    app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      ed.writes.push(params);
      ed.buffers.set(params.path, params.content);
      return {};
    });
    app.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      ed.permissions.push(params);
      if (ed.answer === "cancelled") return { outcome: { outcome: "cancelled" } };
      return { outcome: { outcome: "selected", optionId: ed.answer } };
    });
  };
}

const newEditor = (answer = "allow_once"): Editor => ({
  reads: [],
  writes: [],
  permissions: [],
  buffers: new Map(),
  answer,
});

describe("with the editor's fs capability", () => {
  it("read_text_file is served from the editor's buffer, and the model sees the buffer, not the disk", async () => {
    const ed = newEditor();
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const file = path.join(adapter.workspace, "numbers.txt");
    await writeFile(file, Array.from({ length: 30 }, (_, i) => `disk ${i + 1}\n`).join(""));
    ed.buffers.set(file, Array.from({ length: 30 }, (_, i) => `buffer ${i + 1}\n`).join(""));
    adapter.fake.enqueue(
      toolCallResponse("read_text_file", { path: file, line: 10, limit: 5 }, { namespace: NS, callId: "call_read" }),
      textResponse("read"),
    );
    await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "read the file")).stopReason).toBe("end_turn");

    expect(ed.reads.map((r) => r.path)).toEqual([file]);
    expect(ed.reads[0]?.sessionId).toBe(sessionId);
    // The model's next request carries the tool output: the buffer's lines, not the disk's.
    const next = (adapter.fake.requests[1]?.body.input ?? []) as Array<{
      type: string;
      call_id?: string;
      output?: string;
    }>;
    const output = next.find((i) => i.type === "function_call_output" && i.call_id === "call_read")?.output ?? "";
    expect(output).toContain(JSON.stringify("buffer 10\nbuffer 11\nbuffer 12\nbuffer 13\nbuffer 14\n"));
    expect(JSON.stringify(next)).not.toContain("disk 1");

    const ev = toolEvents(adapter.updatesOf(sessionId), "call_read");
    expect(ev.calls).toHaveLength(1);
    expect(ev.finals).toHaveLength(1);
    expect(ev.calls[0]).toMatchObject({
      kind: "read",
      status: "in_progress",
      title: `Read ${file} (lines 10-14)`,
      locations: [{ path: file, line: 10 }],
      rawInput: { path: file, line: 10, limit: 5 },
    });
    expect(ev.finals[0]).toMatchObject({
      status: "completed",
      rawOutput: {
        content: "buffer 10\nbuffer 11\nbuffer 12\nbuffer 13\nbuffer 14\n",
        total_lines: 30,
        returned_lines: 5,
        has_more: true,
        next_line: 15,
      },
    });
  });

  it("write_text_file goes to the editor (fs/write_text_file), the disk stays untouched, and the client sees one edit with a diff", async () => {
    const ed = newEditor();
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const file = path.join(adapter.workspace, "a.ts");
    await writeFile(file, "on disk\n");
    ed.buffers.set(file, "unsaved buffer\n");
    adapter.fake.enqueue(
      toolCallResponse(
        "write_text_file",
        { path: file, content: "new text\n" },
        { namespace: NS, callId: "call_write" },
      ),
      textResponse("written"),
    );
    await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "write")).stopReason).toBe("end_turn");

    expect(ed.writes).toEqual([{ sessionId, path: file, content: "new text\n" }]);
    expect(await readFile(file, "utf8")).toBe("on disk\n");
    expect(ed.permissions).toHaveLength(0); // inside the workspace: no prompt, and codex asked nothing either
    expect(adapter.stderr()).not.toContain("auto-accepted");
    const ev = toolEvents(adapter.updatesOf(sessionId), "call_write");
    expect(ev.calls).toHaveLength(1);
    expect(ev.finals).toHaveLength(1);
    expect(ev.calls[0]).toMatchObject({
      kind: "edit",
      title: `Write ${file}`,
      locations: [{ path: file, line: 1 }],
      rawInput: { path: file, content: "new text\n" },
    });
    expect(ev.finals[0]).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: file, oldText: "unsaved buffer\n", newText: "new text\n" }],
      rawOutput: { success: true, bytes_written: 9, created: false },
    });
    expect(outputFor(adapter, "call_write")).toContain('"bytes_written":9');
    // The diff rides in _meta for the editor; the model is not shown the old text.
    expect(outputFor(adapter, "call_write")).not.toContain("unsaved buffer");
  });

  it("a failed call ends with one failed update carrying the message; the model gets the error", async () => {
    const ed = newEditor();
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const missing = path.join(adapter.workspace, "missing.txt");
    adapter.fake.enqueue(
      toolCallResponse("read_text_file", { path: missing }, { namespace: NS, callId: "call_missing" }),
      toolCallResponse("read_text_file", { path: "relative.txt" }, { namespace: NS, callId: "call_rel" }),
      textResponse("ok"),
    );
    await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "read")).stopReason).toBe("end_turn");
    const miss = toolEvents(adapter.updatesOf(sessionId), "call_missing");
    expect(miss.calls).toHaveLength(1);
    expect(miss.finals).toEqual([
      expect.objectContaining({
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: `File not found: ${missing}` } }],
        rawOutput: { code: -32001, message: `File not found: ${missing}` },
      }),
    ]);
    expect(outputFor(adapter, "call_missing")).toContain(`File not found: ${missing}`);
    const rel = toolEvents(adapter.updatesOf(sessionId), "call_rel");
    expect(rel.finals[0]).toMatchObject({
      status: "failed",
      rawOutput: { code: -32600, message: "Path must be absolute: relative.txt" },
    });
    expect(ed.reads.map((r) => r.path)).toEqual([missing]); // the relative path never reached the editor
  });
});

describe("without the fs capability (node:fs)", () => {
  it("the same turns read and write the disk, and the client gets no fs/* requests", async () => {
    const ed = newEditor();
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const file = path.join(adapter.workspace, "disk.txt");
    await writeFile(file, "disk text\n");
    const created = path.join(adapter.workspace, "sub", "created.txt");
    await mkdir(path.dirname(created));
    adapter.fake.enqueue(
      toolCallResponse("read_text_file", { path: file }, { namespace: NS, callId: "call_r" }),
      toolCallResponse("write_text_file", { path: created, content: "hello\n" }, { namespace: NS, callId: "call_w" }),
      textResponse("done"),
    );
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "go")).stopReason).toBe("end_turn");
    expect(ed.reads).toHaveLength(0);
    expect(ed.writes).toHaveLength(0);
    expect(outputFor(adapter, "call_r")).toContain("disk text\\n");
    expect(await readFile(created, "utf8")).toBe("hello\n");
    const w = toolEvents(adapter.updatesOf(sessionId), "call_w");
    expect(w.calls).toHaveLength(1);
    expect(w.finals[0]).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: created, oldText: null, newText: "hello\n" }],
      rawOutput: { success: true, bytes_written: 6, created: true },
    });
  });
});

describe("writes outside the workspace", () => {
  async function outsideDir(): Promise<string> {
    const d = await import("node:fs/promises").then((f) => f.mkdtemp(path.join(os.tmpdir(), "cca-outside-")));
    cleanup.push(d);
    return d;
  }

  it("ask the user once, named after the tool call; allow once writes", async () => {
    const ed = newEditor("allow_once");
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const target = path.join(await outsideDir(), "out.txt");
    adapter.fake.enqueue(
      toolCallResponse(
        "write_text_file",
        { path: target, content: "outside\n" },
        { namespace: NS, callId: "call_out" },
      ),
      textResponse("ok"),
    );
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "write outside")).stopReason).toBe("end_turn");
    expect(ed.permissions).toHaveLength(1);
    const req = ed.permissions[0]!;
    expect(req.toolCall).toMatchObject({
      toolCallId: "call_out",
      kind: "edit",
      locations: [{ path: target, line: 1 }],
      content: [{ type: "diff", path: target, oldText: null, newText: "outside\n" }],
    });
    expect(req.options.map((o) => [o.optionId, o.kind])).toEqual([
      ["allow_once", "allow_once"],
      ["allow_always", "allow_always"],
      ["reject_once", "reject_once"],
    ]);
    expect(await readFile(target, "utf8")).toBe("outside\n");
    const ev = toolEvents(adapter.updatesOf(sessionId), "call_out");
    expect(ev.calls).toHaveLength(1);
    expect(ev.finals).toHaveLength(1);
    expect(ev.finals[0]?.status).toBe("completed");
  });

  it("reject leaves the file absent and the model is told", async () => {
    const ed = newEditor("reject_once");
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const target = path.join(await outsideDir(), "rejected.txt");
    adapter.fake.enqueue(
      toolCallResponse("write_text_file", { path: target, content: "no\n" }, { namespace: NS, callId: "call_rej" }),
      textResponse("ok"),
    );
    await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "write outside")).stopReason).toBe("end_turn");
    expect(ed.permissions).toHaveLength(1);
    expect(existsSync(target)).toBe(false);
    expect(ed.writes).toHaveLength(0);
    const message = `Permission denied: ${target} (outside the workspace; not approved)`;
    expect(outputFor(adapter, "call_rej")).toContain(message);
    const ev = toolEvents(adapter.updatesOf(sessionId), "call_rej");
    expect(ev.finals).toEqual([expect.objectContaining({ status: "failed", rawOutput: { code: -32002, message } })]);
  });

  it("in auto, Codex's project config and git's hooks are asked about every time (Codex's sandbox keeps them read-only); refused, nothing is written", async () => {
    const ed = newEditor("reject_once");
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const config = path.join(adapter.workspace, ".codex", "config.toml");
    const hook = path.join(adapter.workspace, ".git", "hooks", "pre-commit");
    await mkdir(path.dirname(hook), { recursive: true });
    const patch = `*** Begin Patch\n*** Add File: ${config}\n+[features]\n+hooks = false\n*** End Patch`;
    adapter.fake.enqueue(
      toolCallResponse("apply_patch", { input: patch }, { namespace: NS, callId: "call_cfg" }),
      toolCallResponse(
        "write_text_file",
        { path: hook, content: "#!/bin/sh\n" },
        { namespace: NS, callId: "call_hook" },
      ),
      textResponse("ok"),
    );
    await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "change the config")).stopReason).toBe("end_turn");
    expect(ed.permissions.map((p) => p.toolCall.title)).toEqual([
      expect.stringContaining("(in a protected folder (.git, .codex, .agents))"),
      expect.stringContaining("(in a protected folder (.git, .codex, .agents))"),
    ]);
    // "Always allow writes outside the workspace" would not be what it says: Allow or Reject only.
    for (const p of ed.permissions) expect(p.options.map((o) => o.optionId)).toEqual(["allow_once", "reject_once"]);
    expect(ed.writes).toHaveLength(0);
    expect(existsSync(config)).toBe(false);
    expect(existsSync(hook)).toBe(false);
    expect(outputFor(adapter, "call_cfg")).toContain("in a protected folder (.git, .codex, .agents); not approved");
  });

  it("the prompt says what happens to the file: emptying one outside is not called a Delete, a patch's Delete is, a Move says where from", async () => {
    const ed = newEditor("reject_once");
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const outside = await outsideDir();
    const emptied = path.join(outside, "emptied.txt");
    const deleted = path.join(outside, "deleted.txt");
    const moved = path.join(outside, "moved.txt");
    await writeFile(emptied, "keep me\n");
    await writeFile(deleted, "keep me too\n");
    await writeFile(moved, "keep\n");
    ed.buffers.set(emptied, "keep me\n");
    ed.buffers.set(deleted, "keep me too\n");
    ed.buffers.set(moved, "keep\n");
    const movedTo = path.join(adapter.workspace, "moved.txt");
    adapter.fake.enqueue(
      toolCallResponse("write_text_file", { path: emptied, content: "" }, { namespace: NS, callId: "call_empty" }),
      toolCallResponse(
        "apply_patch",
        { input: `*** Begin Patch\n*** Delete File: ${deleted}\n*** End Patch` },
        { namespace: NS, callId: "call_del" },
      ),
      toolCallResponse(
        "apply_patch",
        {
          input: `*** Begin Patch\n*** Update File: ${moved}\n*** Move to: ${movedTo}\n@@\n keep\n+more\n*** End Patch`,
        },
        { namespace: NS, callId: "call_move" },
      ),
      textResponse("ok"),
    );
    // With the editor's write capability: the patch tool is ours (Codex's own otherwise).
    await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "empty one, delete the other")).stopReason).toBe("end_turn");
    // A Move from outside deletes the file there: said, not hidden behind a "Write" of where it goes.
    expect(ed.permissions.map((p) => p.toolCall.title)).toEqual([
      `Empty ${emptied} (outside the workspace)`,
      `Delete ${deleted} (outside the workspace)`,
      `Move ${moved} to ${movedTo} (outside the workspace)`,
    ]);
    expect(existsSync(moved)).toBe(true);
    expect(await readFile(emptied, "utf8")).toBe("keep me\n");
    expect(await readFile(deleted, "utf8")).toBe("keep me too\n");
    expect(ed.writes).toHaveLength(0);
  });

  it("a cancelled permission is an error result too", async () => {
    const ed = newEditor("cancelled");
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const target = path.join(await outsideDir(), "cancelled.txt");
    adapter.fake.enqueue(
      toolCallResponse("write_text_file", { path: target, content: "no\n" }, { namespace: NS, callId: "call_c" }),
      textResponse("ok"),
    );
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "write outside");
    expect(existsSync(target)).toBe(false);
    expect(outputFor(adapter, "call_c")).toContain("not approved");
  });

  it("allow always is remembered for the session: the second write does not ask", async () => {
    const ed = newEditor("allow_always");
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const dir = await outsideDir();
    adapter.fake.enqueue(
      toolCallResponse(
        "write_text_file",
        { path: path.join(dir, "1.txt"), content: "1\n" },
        { namespace: NS, callId: "call_1" },
      ),
      toolCallResponse(
        "write_text_file",
        { path: path.join(dir, "2.txt"), content: "2\n" },
        { namespace: NS, callId: "call_2" },
      ),
      textResponse("ok"),
    );
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "write twice");
    expect(ed.permissions).toHaveLength(1);
    expect(await readFile(path.join(dir, "1.txt"), "utf8")).toBe("1\n");
    expect(await readFile(path.join(dir, "2.txt"), "utf8")).toBe("2\n");
  });
});

describe("resumed threads", () => {
  it("the tools keep working after codex restarts and the thread is resumed (config passed again on thread/resume)", async () => {
    const ed = newEditor();
    adapter = await startAdapter({ setupClient: editorClient(ed) });
    const file = path.join(adapter.workspace, "r.txt");
    ed.buffers.set(file, "before restart\n");
    adapter.fake.enqueue(
      toolCallResponse("read_text_file", { path: file }, { namespace: NS, callId: "call_before" }),
      textResponse("one"),
    );
    await adapter.initialize({ fs: { readTextFile: true } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "first")).stopReason).toBe("end_turn");
    await killCodex(adapter);
    ed.buffers.set(file, "after restart\n");
    adapter.fake.enqueue(
      toolCallResponse("read_text_file", { path: file }, { namespace: NS, callId: "call_after" }),
      textResponse("two"),
    );
    expect((await adapter.prompt(sessionId, "second")).stopReason).toBe("end_turn");
    expect(outputFor(adapter, "call_after")).toContain("after restart");
    expect(ed.reads).toHaveLength(2);
    const ev = toolEvents(adapter.updatesOf(sessionId), "call_after");
    expect(ev.calls).toHaveLength(1);
    expect(ev.finals[0]?.status).toBe("completed");
  });
});

describe("a read the editor never answers", () => {
  it("is withdrawn from the editor when the prompt is cancelled, as a write is", async () => {
    const reads: Array<Unanswered<{ path: string }>> = [];
    adapter = await startAdapter({
      setupClient: (app) =>
        app.onRequest(acp.methods.client.fs.readTextFile, ({ params, signal }) =>
          neverAnswer(reads, { path: params.path }, signal),
        ),
    });
    const file = path.join(adapter.workspace, "slow.txt");
    await writeFile(file, "text\n");
    adapter.fake.enqueue(
      toolCallResponse("read_text_file", { path: file }, { namespace: NS, callId: "call_slow" }),
      textResponse("ok"),
    );
    await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await adapter.newSession();
    const pending = adapter.prompt(sessionId, "read it");
    await waitFor(() => reads.length === 1, "the editor asked to read");
    await adapter.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await pending).stopReason).toBe("cancelled");
    await waitFor(() => reads[0]!.withdrawn, "the read withdrawn ($/cancel_request)", 10_000);
  });
});
