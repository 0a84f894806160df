// Issue 31: what the ACP conformance kit checks that matters to editors, written here from the
// spec (not the kit's code): a session opened and never prompted can be loaded, resumed and
// forked; an id that does not exist is -32002 resource-not-found, never an internal error; delete
// is idempotent; responses carry only the stable schema's fields unless the client negotiated
// ACP's unstable schema.
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse } from "../../tools/fake-model/index.js";
import { rawUpdatesOf, startAdapter, type Adapter } from "../support/adapter.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const UNKNOWN = "01a21400-0000-7000-8000-000000000000";
const FORK = "session/fork";

describe("a session opened and never prompted", () => {
  it("can be loaded, resumed and forked, and still runs its first prompt afterwards", async () => {
    adapter = await startAdapter({ responses: [textResponse("first answer"), textResponse("fork answer")] });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    const loaded = await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: adapter.workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("auto");
    expect(loaded.configOptions?.some((o) => o.id === "model")).toBe(true);
    const resumed = await adapter.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: adapter.workspace,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe("auto");
    const forked = (await adapter.agent.request(
      FORK as never,
      { sessionId, cwd: adapter.workspace, mcpServers: [] } as never,
    )) as { sessionId: string };
    expect(forked.sessionId).not.toBe(sessionId);
    expect((await adapter.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
    expect(rawUpdatesOf(adapter, sessionId).some((u) => u.sessionUpdate === "agent_message_chunk")).toBe(true);
    expect((await adapter.prompt(forked.sessionId, "hello fork")).stopReason).toBe("end_turn");
  });
});

describe("an id that does not exist", () => {
  it("load, resume and fork answer -32002 resource-not-found naming it", async () => {
    adapter = await startAdapter({});
    await adapter.initialize();
    const cwd = adapter.workspace;
    for (const call of [
      () => adapter!.agent.request(acp.methods.agent.session.load, { sessionId: UNKNOWN, cwd, mcpServers: [] }),
      () => adapter!.agent.request(acp.methods.agent.session.resume, { sessionId: UNKNOWN, cwd, mcpServers: [] }),
      () => adapter!.agent.request(FORK as never, { sessionId: UNKNOWN, cwd, mcpServers: [] } as never),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: -32002, message: expect.stringContaining(UNKNOWN) });
    }
  });

  it("delete succeeds without effect, and deleting twice succeeds too", async () => {
    adapter = await startAdapter({ responses: [textResponse("one")] });
    await adapter.initialize();
    // Raw: the SDK's client would read a -32002 to a delete as done too.
    const answer = adapter.waitForLine((m) => m.id === "del-unknown");
    adapter.writeRaw(
      JSON.stringify({ jsonrpc: "2.0", id: "del-unknown", method: "session/delete", params: { sessionId: UNKNOWN } }),
    );
    expect(await answer).toEqual({ jsonrpc: "2.0", id: "del-unknown", result: {} });
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "make it stored");
    expect(await adapter.agent.request(acp.methods.agent.session.delete, { sessionId })).toEqual({});
    expect(await adapter.agent.request(acp.methods.agent.session.delete, { sessionId })).toEqual({});
    const fresh = await adapter.newSession();
    expect(await adapter.agent.request(acp.methods.agent.session.delete, { sessionId: fresh.sessionId })).toEqual({});
  });
});

describe("stable responses carry only stable fields unless the client negotiated the unstable schema", () => {
  it("session/prompt: `usage` for every client, one that declares nothing too (acpx prints it), and the same figures in _meta", async () => {
    adapter = await startAdapter({ responses: [textResponse("stable"), textResponse("unstable")] });
    await adapter.initialize();
    const stable = await adapter.newSession();
    const promptLine = adapter.waitForLine(
      (m) => "result" in m && typeof (m.result as { stopReason?: unknown } | null)?.stopReason === "string",
    );
    await adapter.prompt(stable.sessionId, "hi");
    const result = (await promptLine).result as Record<string, unknown>;
    // PromptResponse allows the field in the stable schema too (no additionalProperties: false there).
    expect(Object.keys(result).sort()).toEqual(["_meta", "stopReason", "usage"]);
    expect(result.usage).toMatchObject({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      totalTokens: expect.any(Number),
    });
    expect(result._meta).toMatchObject({ "codex-cli-acp/usage": result.usage });
    await adapter.close();

    adapter = await startAdapter({ responses: [textResponse("unstable")] });
    await adapter.initialize({ plan: {} } as acp.ClientCapabilities);
    const { sessionId } = await adapter.newSession();
    const line = adapter.waitForLine(
      (m) => "result" in m && typeof (m.result as { stopReason?: unknown } | null)?.stopReason === "string",
    );
    await adapter.prompt(sessionId, "hi");
    expect((await line).result).toMatchObject({ stopReason: "end_turn", usage: { inputTokens: expect.any(Number) } });
  });

  it("session/new, load and resume answer with the stable schema's fields only", async () => {
    adapter = await startAdapter({ responses: [textResponse("one")] });
    await adapter.initialize();
    // And the legacy `models`, which both peer adapters send to every client: a client that reads
    // no config options picks its model there (tests/e2e/legacy-models.test.ts).
    const stableKeys = ["sessionId", "modes", "configOptions", "models", "_meta"];
    const created = await adapter.newSession();
    expect(
      Object.keys(created).every((k) => stableKeys.includes(k)),
      Object.keys(created).join(),
    ).toBe(true);
    await adapter.prompt(created.sessionId, "store it");
    for (const method of [acp.methods.agent.session.load, acp.methods.agent.session.resume]) {
      const r = (await adapter.agent.request(method, {
        sessionId: created.sessionId,
        cwd: adapter.workspace,
        mcpServers: [],
      })) as Record<string, unknown>;
      expect(
        Object.keys(r).every((k) => stableKeys.includes(k)),
        `${method}: ${Object.keys(r).join()}`,
      ).toBe(true);
    }
  });
});
