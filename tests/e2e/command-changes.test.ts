// Issue 48, route 1, end to end (real codex, the fake model): in Auto a shell command may write
// inside the workspace (Codex's sandbox allows it); what it changed is shown on its card, as diffs,
// before the card says it completed. A file the editor held with unsaved changes is said on the
// card and to the model. A command that changes nothing shows no diff. The same under ACP v2, as
// diff changes with a git patch.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { textResponse, toolCall, toolCallResponse } from "../../tools/fake-model/index.js";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { startV2Adapter, type V2Adapter } from "../support/adapter-v2.js";
import { waitFor } from "../support/wait-for.js";

const MCP_SERVER = path.resolve(import.meta.dirname, "../support/stdio-mcp-server.mjs");
const FS_CAPS: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };
let adapter: Adapter | undefined;
let v2Adapter: V2Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  await v2Adapter?.close();
  adapter = v2Adapter = undefined;
});

type Updates = acp.SessionUpdate[];
type ToolUpdate = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>;
const ofCall = (updates: Updates, id: string): ToolUpdate[] =>
  updates.filter(
    (u): u is ToolUpdate =>
      (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id,
  );
const diffsOf = (u: ToolUpdate | undefined) =>
  (u?.content ?? []).filter((c): c is Extract<acp.ToolCallContent, { type: "diff" }> => c.type === "diff");
const textsOf = (u: ToolUpdate | undefined): string =>
  (u?.content ?? []).map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join("\n");
/** The update that says the call completed: what it shows is what the client has when it hears the call ended. */
const completion = (updates: Updates, id: string): ToolUpdate | undefined =>
  ofCall(updates, id).find((u) => u.status === "completed" || u.status === "failed");

/** A client that serves fs/* from its buffers (unsaved text where it holds some), else from the disk. */
function editorClient(buffers: Map<string, string>): (app: acp.ClientApp) => void {
  return (app) => {
    app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => ({
      content: buffers.get(params.path) ?? (await readFile(params.path, "utf8")),
    }));
    app.onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      buffers.set(params.path, params.content);
      await writeFile(params.path, params.content);
      return {};
    });
    app.onRequest(acp.methods.client.session.requestPermission, () => ({
      outcome: { outcome: "selected", optionId: "allow_once" },
    }));
  };
}

const sh = (cmd: string, callId: string) => toolCallResponse("exec_command", { cmd }, { callId });

/** A workspace holding `files`, one prompt in which the model runs `cmd`: the workspace and the update that completed the command's card. */
async function oneCommand(
  files: Record<string, string>,
  cmd: string,
  callId: string,
): Promise<{ w: string; done: ToolUpdate | undefined }> {
  adapter = await startAdapter({ setupClient: editorClient(new Map()) });
  const w = adapter.workspace;
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(w, name), text);
  adapter.fake.enqueue(sh(cmd, callId));
  adapter.fake.enqueue(textResponse("done"));
  await adapter.initialize(FS_CAPS);
  const { sessionId } = await adapter.newSession();
  expect((await adapter.prompt(sessionId, "run it")).stopReason).toBe("end_turn");
  return { w, done: completion(adapter.updatesOf(sessionId), callId) };
}

describe("a command's changes on its card (Auto, a client with fs)", () => {
  it("sed -i and a redirect show as diffs before the card completes; a buffer held unsaved is said on the card and to the model; a command that changes nothing shows none", async () => {
    const buffers = new Map<string, string>();
    adapter = await startAdapter({ setupClient: editorClient(buffers) });
    const notes = path.join(adapter.workspace, "notes.txt");
    const created = path.join(adapter.workspace, "created.txt");
    await writeFile(notes, "first line\nsecond line\n");
    buffers.set(notes, "first line\nsecond line\nan unsaved line\n");
    adapter.fake.enqueue(sh("sed -i 's/first/changed/' notes.txt", "sed-1"));
    adapter.fake.enqueue(sh("echo hello > created.txt", "redirect-1"));
    adapter.fake.enqueue(sh("cat notes.txt", "cat-1"));
    adapter.fake.enqueue(textResponse("done"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "edit with the shell")).stopReason).toBe("end_turn");
    const updates = adapter.updatesOf(sessionId);

    // sed -i: the diff old -> new, on the update that completes the call.
    expect(await readFile(notes, "utf8")).toBe("changed line\nsecond line\n");
    const sed = completion(updates, "sed-1");
    expect(sed?.status).toBe("completed");
    expect(diffsOf(sed)).toEqual([
      { type: "diff", path: notes, oldText: "first line\nsecond line\n", newText: "changed line\nsecond line\n" },
    ]);
    // The editor held other text: the card says so, and so does what the model reads after the call.
    expect(textsOf(sed)).toContain(`unsaved changes to ${notes}`);
    const afterSed = JSON.stringify(adapter.fake.requests.map((r) => r.body?.input ?? []));
    expect(afterSed).toContain(`unsaved changes to ${notes}`);

    // The redirect: a new file, with no old side.
    const redirect = completion(updates, "redirect-1");
    expect(diffsOf(redirect)).toEqual([{ type: "diff", path: created, oldText: null, newText: "hello\n" }]);
    expect(textsOf(redirect)).not.toContain("unsaved");

    // A command that changes nothing: no diff, no warning.
    const cat = completion(updates, "cat-1");
    expect(cat?.status).toBe("completed");
    expect(diffsOf(cat)).toEqual([]);
    expect(ofCall(updates, "cat-1").flatMap(diffsOf)).toEqual([]);
    expect(textsOf(cat)).not.toContain("unsaved");
  });

  it("rm and mv name the deleted file and the new one; a binary file is named without its text", async () => {
    const { w, done } = await oneCommand(
      { "old.txt": "to be removed\n", "a.txt": "moving\n" },
      "rm old.txt && mv a.txt b.txt && printf 'x\\000y' > blob.bin",
      "several",
    );
    const diffs = diffsOf(done);
    expect(diffs).toContainEqual(
      expect.objectContaining({ path: path.join(w, "old.txt"), oldText: "to be removed\n", newText: "" }),
    );
    expect(diffs).toContainEqual(
      expect.objectContaining({ path: path.join(w, "a.txt"), oldText: "moving\n", newText: "" }),
    );
    expect(diffs).toContainEqual({ type: "diff", path: path.join(w, "b.txt"), oldText: null, newText: "moving\n" });
    expect(diffs.find((d) => d.path.endsWith("blob.bin"))).toBeUndefined();
    expect(textsOf(done)).toContain(`${path.join(w, "blob.bin")}: created (a binary file)`);
  });

  it("a file the command does not name: one it creates is shown whole, one it changes is named; ignored folders are not watched", async () => {
    const gen =
      "echo generated > out.txt\nsed -i s/first/changed/ notes.txt\nmkdir -p node_modules && echo dep > node_modules/dep.js\n";
    const { w, done } = await oneCommand({ "notes.txt": "first line\n", "gen.sh": gen }, "sh gen.sh", "script-1");
    expect(await readFile(path.join(w, "out.txt"), "utf8")).toBe("generated\n");
    expect(diffsOf(done)).toEqual([
      { type: "diff", path: path.join(w, "out.txt"), oldText: null, newText: "generated\n" },
    ]);
    expect(textsOf(done)).toContain(`${path.join(w, "notes.txt")}: changed (not named in the command`);
    expect(textsOf(done)).not.toContain("node_modules");
  });
});

describe("a subagent's command", () => {
  it("shows what it changed on the subagent's own card", async () => {
    // The parent's next request and the subagent's first race for the next response: each pair is
    // the same for both. The command appends, so whoever runs it changes the file.
    const spawn = {
      items: [
        {
          type: "function_call" as const,
          namespace: "multi_agent_v1",
          name: "spawn_agent",
          arguments: { message: "append a line" },
          callId: "spawn-1",
        },
      ],
    };
    const append = sh("echo line >> sub.txt", "sub-cmd");
    adapter = await startAdapter({
      setupClient: editorClient(new Map()),
      responses: [spawn, append, append, textResponse("done"), textResponse("done"), textResponse("done")],
    });
    await adapter.initialize({ ...FS_CAPS, subagents: {} } as acp.ClientCapabilities);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "use a subagent");
    const file = path.join(adapter.workspace, "sub.txt");
    const childCard = (): ToolUpdate | undefined => {
      for (const [id, updates] of adapter!.updates) if (id !== sessionId) return completion(updates, "sub-cmd");
      return undefined;
    };
    await waitFor(() => childCard() !== undefined, "the subagent's command card to complete");
    const diffs = diffsOf(childCard());
    expect(diffs.map((d) => d.path)).toEqual([file]);
    expect(diffs[0]!.newText).toMatch(/line\n$/);
  });
});

describe("a tool of an MCP server the editor passed in", () => {
  it("a file it writes is on its card; our own file tools' cards are left as they are", async () => {
    adapter = await startAdapter({ setupClient: editorClient(new Map()) });
    const w = adapter.workspace;
    adapter.fake.enqueue({
      items: [toolCall("save_note", { text: "remember" }, { namespace: "mcp__test_notes", callId: "mcp-1" })],
    });
    adapter.fake.enqueue(textResponse("done"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [
        {
          name: "test_notes",
          command: process.execPath,
          args: [MCP_SERVER],
          env: [{ name: "MCP_NOTES_DIR", value: w }],
        },
      ],
    });
    expect((await adapter.prompt(sessionId, "save a note")).stopReason).toBe("end_turn");
    expect(await readFile(path.join(w, "note.txt"), "utf8")).toBe("remember\n");
    const done = completion(adapter.updatesOf(sessionId), "mcp-1");
    expect(done?.status).toBe("completed");
    expect(diffsOf(done)).toEqual([
      { type: "diff", path: path.join(w, "note.txt"), oldText: null, newText: "remember\n" },
    ]);
  });
});

describe("a command's changes on its card, ACP v2", () => {
  it("sed -i and a redirect are diff changes with a git patch on the completed card; a command that changes nothing has none", async () => {
    v2Adapter = await startV2Adapter({
      responses: [
        sh("sed -i 's/first/changed/' notes.txt", "sed-2"),
        sh("echo hello > created.txt", "redirect-2"),
        sh("cat notes.txt", "cat-2"),
        textResponse("done"),
      ],
    });
    const notes = path.join(v2Adapter.workspace, "notes.txt");
    await writeFile(notes, "first line\nsecond line\n");
    await v2Adapter.initialize();
    const { sessionId } = await v2Adapter.newSession();
    await v2Adapter.turn(sessionId, "edit with the shell");
    const updates = v2Adapter.updatesOf(sessionId);
    type V2Tool = Extract<v2.SessionUpdate, { sessionUpdate: "tool_call_update" }>;
    const done = (id: string): V2Tool | undefined =>
      updates.find(
        (u): u is V2Tool => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status === "completed",
      );
    const diffs = (id: string) =>
      (done(id)?.content ?? []).filter((c): c is Extract<v2.ToolCallContent, { type: "diff" }> => c.type === "diff");
    const sed = diffs("sed-2");
    expect(sed.map((d) => d.changes)).toEqual([[{ operation: "modify", path: notes }]]);
    expect(sed[0]?.patch?.text).toContain("-first line");
    expect(sed[0]?.patch?.text).toContain("+changed line");
    const redirect = diffs("redirect-2");
    expect(redirect.map((d) => d.changes)).toEqual([
      [{ operation: "add", path: path.join(v2Adapter.workspace, "created.txt") }],
    ]);
    expect(redirect[0]?.patch?.text).toContain("+hello");
    expect(diffs("cat-2")).toEqual([]);
  });
});
