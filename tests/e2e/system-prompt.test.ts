// A client's system prompt (ACP's unstable `systemPrompt` on session/new, load, resume, fork):
// `append` adds it to Codex's developer instructions, `override` replaces Codex's base
// instructions; a mode or content block the agent does not support is -32602 and opens nothing.
// Checked in what the model receives (the fake model's recorded requests). Sent as raw JSON-RPC:
// the stable client SDK would drop the unstable field.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rawUpdatesOf, startAdapter, type Adapter } from "../support/adapter.js";
import { startFakeModel, textResponse } from "../support/fake-model.js";
import { createCodexHome } from "../support/codex-home.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

let nextId = 1000;
async function raw(a: Adapter, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = nextId++;
  const answered = a.waitForLine((m) => m.id === id);
  a.writeRaw(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  return answered;
}

// Codex 0.169 sends its base instructions as the request's first developer message (no `instructions` field).
type Body = { input?: Array<{ role?: string; content?: Array<{ text?: string }> }> };
const developerText = (body: Body): string =>
  (body.input ?? [])
    .filter((i) => i.role === "developer")
    .flatMap((i) => i.content?.map((c) => c.text ?? "") ?? [])
    .join("\n");

describe("a client's system prompt", () => {
  it("is advertised with both modes", async () => {
    adapter = await startAdapter();
    const init = await adapter.initialize();
    expect((init.agentCapabilities?.sessionCapabilities as Record<string, unknown>).systemPrompt).toEqual({
      mode: { override: {} },
    });
  });

  it("append: the model gets it with Codex's own instructions; the thread keeps it after a load", async () => {
    const fake = await startFakeModel([textResponse("oui"), textResponse("encore"), textResponse("toujours")]);
    const home = await createCodexHome({ modelUrl: fake.url });
    // The workspace outlives the first adapter (the second one loads the session from it).
    const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-sp-")));
    try {
      adapter = await startAdapter({ fake, home, workspace });
      await adapter.initialize();
      const opened = await raw(adapter, "session/new", {
        cwd: adapter.workspace,
        mcpServers: [],
        systemPrompt: { mode: "append", content: [{ type: "text", text: "Always answer in French." }] },
      });
      const sessionId = (opened.result as { sessionId: string }).sessionId;
      await adapter.prompt(sessionId, "hello");
      const first = adapter.fake.requests[0]!.body as Body;
      expect(developerText(first)).toContain("Always answer in French.");
      expect(developerText(first)).toContain("You are Codex"); // Codex's own, kept

      // A fork, a load (here in another process, as after an editor restart) and a resume keep the
      // instructions the thread was started with: Codex stores them with its history. Checked, accepted.
      const forked = await raw(adapter, "session/fork", {
        sessionId,
        cwd: adapter.workspace,
        mcpServers: [],
        systemPrompt: { mode: "append", content: [{ type: "text", text: "Be brief." }] },
      });
      expect(forked.error).toBeUndefined();
      await adapter.close();
      adapter = await startAdapter({ fake, home, workspace });
      await adapter.initialize();
      const loaded = await raw(adapter, "session/load", {
        sessionId,
        cwd: workspace,
        mcpServers: [],
        systemPrompt: { mode: "append", content: [{ type: "text", text: "Always answer in French." }] },
      });
      expect(loaded.error).toBeUndefined();
      await adapter.prompt(sessionId, "again");
      expect(developerText(adapter.fake.requests[1]!.body as Body)).toContain("Always answer in French.");
      const before = adapter.stdoutLines.length;
      const refused = await raw(adapter, "session/load", {
        sessionId,
        cwd: workspace,
        mcpServers: [],
        systemPrompt: { mode: "replace", content: [{ type: "text", text: "x" }] },
      });
      expect(refused.error).toMatchObject({ code: -32602 });
      // Refused before anything was read: no history went out for it, and the open session lives on.
      // Checked once the next turn is over: a replay sent after the refusal would be on stdout, in
      // order, before that turn's end; what is there is that turn's answer alone.
      expect((await adapter.prompt(sessionId, "still open?")).stopReason).toBe("end_turn");
      const sent = rawUpdatesOf({ stdoutLines: adapter.stdoutLines.slice(before) }, sessionId);
      const messages = sent.filter(
        (u) => u.sessionUpdate === "user_message_chunk" || u.sessionUpdate === "agent_message_chunk",
      );
      expect(messages.map((u) => [u.sessionUpdate, (u.content as { text?: string }).text])).toEqual([
        ["agent_message_chunk", "toujours"],
      ]);
    } finally {
      await adapter?.close();
      adapter = undefined;
      await fake.close();
      await home.cleanup();
      await rm(workspace, { recursive: true, force: true });
    }
  });

  it("override: replaces Codex's base instructions", async () => {
    adapter = await startAdapter({ responses: [textResponse("ok")] });
    await adapter.initialize();
    const text = "You are a terse reviewer. Only list problems.";
    const opened = await raw(adapter, "session/new", {
      cwd: adapter.workspace,
      mcpServers: [],
      systemPrompt: { mode: "override", content: [{ type: "text", text }] },
    });
    await adapter.prompt((opened.result as { sessionId: string }).sessionId, "review");
    const sent = developerText(adapter.fake.requests[0]!.body as Body);
    expect(sent).toContain(text);
    expect(sent).not.toContain("You are Codex");
  });

  it("an unknown mode, no content or a non-text block: -32602 naming what is wrong, and no session", async () => {
    adapter = await startAdapter();
    await adapter.initialize();
    const bad = [
      [{ mode: "prepend", content: [{ type: "text", text: "x" }] }, /mode "prepend"/],
      [{ mode: "append", content: [] }, /empty/],
      [{ mode: "append", content: [{ type: "image", mimeType: "image/png", data: "AAAA" }] }, /text/],
    ] as const;
    for (const [systemPrompt, message] of bad) {
      const reply = await raw(adapter, "session/new", { cwd: adapter.workspace, mcpServers: [], systemPrompt });
      expect(reply.error).toMatchObject({ code: -32602, message: expect.stringMatching(message) });
    }
    const listed = await raw(adapter, "session/list", {});
    expect((listed.result as { sessions: unknown[] }).sessions).toEqual([]);
  });
});
