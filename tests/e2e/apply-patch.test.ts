// Issue 10 end to end, with the real codex and the fake model: every edit goes through the
// editor, and the editor's "no" is final. With the fs capability the model's only apply_patch is
// ours (mcp__acp_fs); without it, Codex's native one stays. Patches apply against the editor's
// buffers, all or nothing; Delete and Move happen on disk with their own kinds; the session's mode,
// roots and the client's refusals hold.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { applyPatch, textResponse, toolCallResponse, type FakeModel } from "../../tools/fake-model/index.js";
import { killCodex, startAdapter, type Adapter, modelOutputFor } from "../support/adapter.js";

const NS = "mcp__acp_fs";
const FS_CAPS: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };
let adapter: Adapter | undefined;
const cleanup: string[] = [];

afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  for (const p of cleanup.splice(0)) await rm(p, { recursive: true, force: true });
});

type ToolCall = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>;
type ToolUpdate = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call_update" }>;

/** Every tool name the model was offered in request `n` (namespaced ones as ns/name, code-mode ones inside additional_tools too). */
function offeredTools(fake: FakeModel, n = 0): string[] {
  const body = fake.requests[n]?.body as { tools?: unknown[]; input?: unknown[] } | undefined;
  const names: string[] = [];
  const walk = (tools: unknown[] | undefined, prefix: string): void => {
    for (const t of tools ?? []) {
      const tool = t as { name?: string; type?: string; tools?: unknown[] };
      if (Array.isArray(tool.tools)) walk(tool.tools, `${tool.name}/`);
      else if (tool.name) names.push(prefix + tool.name);
    }
  };
  walk(body?.tools, "");
  for (const item of body?.input ?? []) {
    const i = item as { type?: string; tools?: unknown[] };
    if (i.type === "additional_tools") walk(i.tools, "");
  }
  return names;
}

/** Whether Codex's native apply_patch is declared to the model: as a plain tool, or inside code mode's exec. */
function nativePatchOffered(fake: FakeModel, n = 0): boolean {
  return (
    offeredTools(fake, n).includes("apply_patch") ||
    JSON.stringify(fake.requests[n]?.body ?? {}).includes("apply_patch(input: string)")
  );
}

function events(updates: acp.SessionUpdate[], id: string): { calls: ToolCall[]; finals: ToolUpdate[] } {
  const mine = updates.filter(
    (u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id,
  );
  return {
    calls: mine.filter((u): u is ToolCall => u.sessionUpdate === "tool_call"),
    finals: mine.filter(
      (u): u is ToolUpdate =>
        u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed"),
    ),
  };
}

type Editor = {
  buffers: Map<string, string>;
  reads: string[];
  writes: acp.WriteTextFileRequest[];
  permissions: acp.RequestPermissionRequest[];
  refuse: { read: boolean; write: boolean };
};

/** A client like Zed: serves fs/* from its buffers; like acpx, it can answer a user's "no" with an error. */
function editor(): { ed: Editor; setupClient: (app: acp.ClientApp) => void } {
  const ed: Editor = {
    buffers: new Map(),
    reads: [],
    writes: [],
    permissions: [],
    refuse: { read: false, write: false },
  };
  return {
    ed,
    setupClient: (app) => {
      app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
        ed.reads.push(params.path);
        if (ed.refuse.read) throw new acp.RequestError(-32603, "Permission denied by user");
        const text = ed.buffers.get(params.path) ?? (await readFile(params.path, "utf8").catch(() => undefined));
        if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
        return { content: text };
      });
      app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        if (ed.refuse.write) throw new acp.RequestError(-32603, "Permission denied by user");
        ed.writes.push(params);
        ed.buffers.set(params.path, params.content);
        return {};
      });
      app.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        ed.permissions.push(params);
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      });
    },
  };
}

const patchCall = (input: string, callId: string) =>
  toolCallResponse("apply_patch", { input }, { namespace: NS, callId });
const P = (...body: string[]): string => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");

describe("the tools the model is offered", () => {
  it("with the editor's write capability: ours only; without it: Codex's own; the model list is the same", async () => {
    const { setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    adapter.fake.enqueue(textResponse("one"), textResponse("two"));
    await adapter.initialize(FS_CAPS);
    const withFs = await adapter.newSession();
    await adapter.prompt(withFs.sessionId, "hi");
    const offeredWith = offeredTools(adapter.fake, 0);
    expect(offeredWith).toEqual(
      expect.arrayContaining([`${NS}/apply_patch`, `${NS}/read_text_file`, `${NS}/write_text_file`]),
    );
    expect(offeredWith).not.toContain("apply_patch");
    expect(nativePatchOffered(adapter.fake, 0)).toBe(false);
    const instructions = JSON.stringify(adapter.fake.requests[0]?.body.input ?? []);
    expect(instructions).toContain("`apply_patch` to edit files");
    expect(instructions).toContain("unsaved_changes: true");
    await adapter.close();

    adapter = await startAdapter({ setupClient });
    adapter.fake.enqueue(textResponse("three"));
    await adapter.initialize({});
    const without = await adapter.newSession();
    await adapter.prompt(without.sessionId, "hi");
    const offeredWithout = offeredTools(adapter.fake, 0);
    expect(offeredWithout).toContain("apply_patch");
    expect(offeredWithout).not.toContain(`${NS}/apply_patch`);
    expect(offeredWithout).toEqual(expect.arrayContaining([`${NS}/read_text_file`, `${NS}/write_text_file`]));
    // The per-thread catalog changes no model: the picker offers the same models either way.
    const models = (r: acp.NewSessionResponse) => JSON.stringify(r.configOptions?.find((o) => o.id === "model"));
    expect(models(withFs)).toBe(models(without));
    expect(models(withFs)).toContain("gpt-5.5");
  });

  it("a thread resumed in a new codex (after a crash) still has only ours", async () => {
    const { setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    adapter.fake.enqueue(textResponse("before"), textResponse("after"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "one");
    await killCodex(adapter);
    expect((await adapter.prompt(sessionId, "two")).stopReason).toBe("end_turn");
    expect(adapter.fake.requests).toHaveLength(2);
    expect(nativePatchOffered(adapter.fake, 1)).toBe(false);
    expect(offeredTools(adapter.fake, 1)).toContain(`${NS}/apply_patch`);
  });

  it.each([
    ["gpt-5.5", "plain tools"],
    ["gpt-6-astra", "code mode: tools inside additional_tools"],
  ])("for the real model %s (%s) too", async (model) => {
    const { setupClient } = editor();
    adapter = await startAdapter({ setupClient, env: { CODEX_ACP_CODEX_ARGS: `-c model="${model}"` } });
    adapter.fake.enqueue(textResponse("ok"), textResponse("ok"));
    await adapter.initialize({});
    const plain = await adapter.newSession();
    await adapter.prompt(plain.sessionId, "hi");
    expect(adapter.fake.requests[0]?.body.model).toBe(model);
    expect(nativePatchOffered(adapter.fake, 0)).toBe(true);
    await adapter.close();

    adapter = await startAdapter({ setupClient, env: { CODEX_ACP_CODEX_ARGS: `-c model="${model}"` } });
    adapter.fake.enqueue(textResponse("ok"));
    await adapter.initialize(FS_CAPS);
    const withFs = await adapter.newSession();
    await adapter.prompt(withFs.sessionId, "hi");
    expect(adapter.fake.requests[0]?.body.model).toBe(model);
    expect(nativePatchOffered(adapter.fake, 0)).toBe(false);
    // Ours is listed to the model, not hidden behind tool_search (these models support it).
    const body = JSON.stringify(adapter.fake.requests[0]?.body);
    expect(body).toContain("Create, change, move or delete files with a patch");
    expect(body).not.toMatch(/Deferred tool namespaces:[^"]*mcp__acp_fs/);
    if (model === "gpt-5.5") expect(offeredTools(adapter.fake, 0)).toContain(`${NS}/apply_patch`);
  });
});

describe("with the editor's fs capability", () => {
  it("an Update+Add patch applies to the unsaved buffer and goes out through fs/write_text_file; the disk is untouched", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const file = path.join(adapter.workspace, "app.ts");
    await writeFile(file, "export const a = 1;\nexport const b = 2;\n");
    ed.buffers.set(file, "export const a = 1;\nexport const b = 2; // unsaved\n");
    const patch = P(
      "*** Update File: app.ts",
      "@@",
      " export const a = 1;",
      "-export const b = 2; // unsaved",
      "+export const b = 3;",
      "*** Add File: lib/new.ts",
      "+export const c = 4;",
    );
    adapter.fake.enqueue(patchCall(patch, "call_patch"), textResponse("patched"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "edit")).stopReason).toBe("end_turn");

    const added = path.join(adapter.workspace, "lib", "new.ts");
    expect(ed.writes).toEqual([
      { sessionId, path: file, content: "export const a = 1;\nexport const b = 3;\n" },
      { sessionId, path: added, content: "export const c = 4;\n" },
    ]);
    expect(await readFile(file, "utf8")).toBe("export const a = 1;\nexport const b = 2;\n");
    expect(existsSync(added)).toBe(false);
    expect(ed.permissions).toHaveLength(0);
    // Codex shows the model the structured result.
    expect(JSON.parse(modelOutputFor(adapter, "call_patch").replace(/^[^{]*/s, ""))).toEqual({
      success: true,
      files: [
        { path: file, action: "update" },
        { path: added, action: "add" },
      ],
    });

    const ev = events(adapter.updatesOf(sessionId), "call_patch");
    expect(ev.calls).toHaveLength(1);
    expect(ev.finals).toHaveLength(1);
    expect(ev.calls[0]).toMatchObject({
      kind: "edit",
      title: "Edit 2 files",
      status: "in_progress",
      locations: [{ path: file }, { path: added }],
      rawInput: { input: patch },
    });
    expect(ev.finals[0]).toMatchObject({
      status: "completed",
      content: [
        {
          type: "diff",
          path: file,
          oldText: "export const a = 1;\nexport const b = 2; // unsaved\n",
          newText: "export const a = 1;\nexport const b = 3;\n",
        },
        { type: "diff", path: added, oldText: null, newText: "export const c = 4;\n" },
      ],
    });
  });

  it("a patch that does not match writes nothing (not even its valid Add File) and the model gets the error", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const file = path.join(adapter.workspace, "a.txt");
    await writeFile(file, "alpha\nbeta\n");
    const patch = P("*** Add File: fresh.txt", "+new", "*** Update File: a.txt", "@@", "-gamma", "+delta");
    adapter.fake.enqueue(patchCall(patch, "call_bad"), textResponse("sorry"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "edit")).stopReason).toBe("end_turn");
    expect(ed.writes).toEqual([]);
    expect(existsSync(path.join(adapter.workspace, "fresh.txt"))).toBe(false);
    const output = modelOutputFor(adapter, "call_bad");
    expect(output).toContain(`The patch does not apply to ${file}`);
    expect(output).toContain("gamma");
    expect(output).toContain("-32006");
    const ev = events(adapter.updatesOf(sessionId), "call_bad");
    expect(ev.calls).toHaveLength(1);
    expect(ev.finals).toEqual([
      expect.objectContaining({ status: "failed", rawOutput: expect.objectContaining({ code: -32006 }) }),
    ]);
  });

  it("Delete and Move happen on disk, shown with kinds delete and move", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const gone = path.join(adapter.workspace, "gone.txt");
    const from = path.join(adapter.workspace, "from.txt");
    const to = path.join(adapter.workspace, "to.txt");
    await writeFile(gone, "bye\n");
    await writeFile(from, "keep\n");
    adapter.fake.enqueue(
      patchCall(P("*** Delete File: gone.txt"), "call_del"),
      patchCall(P("*** Update File: from.txt", "*** Move to: to.txt", "@@", " keep", "+more"), "call_move"),
      textResponse("done"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "tidy")).stopReason).toBe("end_turn");
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(from)).toBe(false);
    expect(ed.writes).toEqual([{ sessionId, path: to, content: "keep\nmore\n" }]);
    const del = events(adapter.updatesOf(sessionId), "call_del");
    expect(del.calls[0]).toMatchObject({ kind: "delete", title: `Delete ${gone}`, locations: [{ path: gone }] });
    expect(del.finals[0]).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: gone, oldText: "bye\n", newText: "" }],
    });
    const move = events(adapter.updatesOf(sessionId), "call_move");
    expect(move.calls[0]).toMatchObject({
      kind: "move",
      title: `Move ${from} to ${to}`,
      locations: [{ path: from }, { path: to }],
    });
    expect(move.finals[0]).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: to, oldText: "keep\n", newText: "keep\nmore\n" }],
    });
  });

  it("read-only mode refuses a patch; a patch outside the roots asks once for all its files", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const outside = await mkdtemp("/var/tmp/cca-outside-");
    cleanup.push(outside);
    const inside = path.join(adapter.workspace, "in.txt");
    adapter.fake.enqueue(patchCall(P("*** Add File: in.txt", "+x"), "call_ro"), textResponse("refused"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "read-only" });
    expect((await adapter.prompt(sessionId, "write")).stopReason).toBe("end_turn");
    expect(modelOutputFor(adapter, "call_ro")).toContain(`Permission denied: ${inside} (session mode is read-only)`);
    expect(ed.writes).toEqual([]);

    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto" });
    const o1 = path.join(outside, "o1.txt");
    const o2 = path.join(outside, "o2.txt");
    adapter.fake.enqueue(
      patchCall(P(`*** Add File: ${o1}`, "+1", `*** Add File: ${o2}`, "+2", "*** Add File: in.txt", "+in"), "call_out"),
      textResponse("ok"),
    );
    expect((await adapter.prompt(sessionId, "write outside")).stopReason).toBe("end_turn");
    expect(ed.permissions).toHaveLength(1);
    expect(ed.permissions[0]?.toolCall).toMatchObject({
      toolCallId: "call_out",
      kind: "edit",
      content: [
        { type: "diff", path: o1, oldText: null, newText: "1\n" },
        { type: "diff", path: o2, oldText: null, newText: "2\n" },
        { type: "diff", path: inside, oldText: null, newText: "in\n" },
      ],
    });
    expect(ed.writes.map((w) => w.path)).toEqual([o1, o2, inside]);
  });

  it("the client's refusal is final (acpx answers a user's no with an error): the model gets -32002, the disk is untouched", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const file = path.join(adapter.workspace, "secret.txt");
    await writeFile(file, "on disk\n");
    ed.refuse = { read: true, write: true };
    adapter.fake.enqueue(
      toolCallResponse("read_text_file", { path: file }, { namespace: NS, callId: "call_read" }),
      toolCallResponse(
        "write_text_file",
        { path: file, content: "overwritten\n" },
        { namespace: NS, callId: "call_write" },
      ),
      patchCall(P("*** Update File: secret.txt", "@@", "-on disk", "+patched"), "call_patch"),
      textResponse("ok"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "go")).stopReason).toBe("end_turn");
    for (const id of ["call_read", "call_write", "call_patch"]) {
      const out = modelOutputFor(adapter, id);
      expect(out, id).toContain("-32002");
      expect(out, id).toContain(`Permission denied: ${file} (the editor refused: Permission denied by user)`);
      expect(out, id).not.toContain("on disk"); // nothing read around the editor reached the model
    }
    expect(await readFile(file, "utf8")).toBe("on disk\n");
  });

  it("a patch whose second file the editor refuses: the card says why before the first is put back, and a refused put-back is named", async () => {
    // The user accepts a.txt, refuses b.txt, then refuses putting a.txt back as well.
    const written: string[] = [];
    adapter = await startAdapter({
      setupClient: (app) => {
        app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => ({
          content: await readFile(params.path, "utf8"),
        }));
        app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
          if (written.length > 0) throw new acp.RequestError(-32603, "Internal error", { details: "the user said no" });
          written.push(params.path);
          return {};
        });
      },
    });
    const a = path.join(adapter.workspace, "a.txt");
    await writeFile(a, "a\n");
    await writeFile(path.join(adapter.workspace, "b.txt"), "b\n");
    adapter.fake.enqueue(
      patchCall(P("*** Update File: a.txt", "@@", "-a", "+A", "*** Update File: b.txt", "@@", "-b", "+B"), "call_half"),
      textResponse("ok"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "patch both");
    expect(written).toEqual([a]);
    const card = adapter
      .updatesOf(sessionId)
      .filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_half");
    expect(JSON.stringify(card)).toContain(`putting back ${a} as it was`);
    expect(modelOutputFor(adapter, "call_half")).toContain(
      `These files were changed and could not be put back: ${a} (Permission denied: ${a} (the editor refused: the user said no))`,
    );
  });

  it("read_text_file tells the model about unsaved changes", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const file = path.join(adapter.workspace, "u.txt");
    await writeFile(file, "saved\n");
    ed.buffers.set(file, "saved\nand edited\n");
    adapter.fake.enqueue(
      toolCallResponse("read_text_file", { path: file }, { namespace: NS, callId: "call_u" }),
      textResponse("ok"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "read");
    expect(modelOutputFor(adapter, "call_u")).toContain('"unsaved_changes":true');
  });
});

describe("without the fs capability", () => {
  it("a native apply_patch that Codex rejects is still shown, as one failed tool call", async () => {
    adapter = await startAdapter({});
    await writeFile(path.join(adapter.workspace, "n.txt"), "one\n");
    adapter.fake.enqueue(
      { items: [applyPatch(P("*** Update File: n.txt", "@@", "-two", "+three"), { callId: "call_native" })] },
      textResponse("hmm"),
    );
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "edit")).stopReason).toBe("end_turn");
    const ev = events(adapter.updatesOf(sessionId), "call_native");
    expect(ev.calls).toHaveLength(1);
    expect(ev.calls[0]).toMatchObject({
      kind: "edit",
      status: "failed",
      title: `Edit ${path.join(adapter.workspace, "n.txt")}`,
    });
    expect(JSON.stringify(ev.calls[0]?.content)).toContain("Failed to find expected lines");
    expect(modelOutputFor(adapter, "call_native")).toContain("Failed to find expected lines");
  });
});
