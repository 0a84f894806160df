// Issue 13: managing sessions from the editor: delete (stable), fork and set_title (unstable), /rename.
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { textResponse } from "../support/fake-model.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

async function start(...answers: string[]) {
  adapter = await startAdapter();
  adapter.fake.enqueue(...answers.map((a) => textResponse(a)));
  const init = await adapter.initialize();
  return init;
}

const listed = async () => (await adapter!.agent.request(acp.methods.agent.session.list, {})).sessions;

describe("session management", () => {
  it("delete, fork and title are advertised", async () => {
    const init = await start();
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ delete: {}, fork: {}, title: {} });
  });

  it("delete closes the session and takes it out of the list; an unknown id succeeds without effect (idempotent)", async () => {
    await start("kept", "gone");
    const keep = await adapter!.newSession();
    await adapter!.prompt(keep.sessionId, "keep me");
    const { sessionId } = await adapter!.newSession();
    await adapter!.prompt(sessionId, "delete me");
    expect((await listed()).map((s) => s.sessionId)).toContain(sessionId);
    expect(await adapter!.agent.request(acp.methods.agent.session.delete, { sessionId })).toEqual({});
    const after = (await listed()).map((s) => s.sessionId);
    expect(after).not.toContain(sessionId);
    expect(after).toContain(keep.sessionId);
    await expect(adapter!.prompt(sessionId, "still there?")).rejects.toMatchObject({ code: -32002 });
    // (The SDK's client treats not-found as done for a delete: the raw answer is checked.)
    const answer = adapter!.waitForLine((m) => m.id === "del-unknown");
    adapter!.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: "del-unknown", method: "session/delete", params: { sessionId: "01a00000-0000-7000-8000-000000000000" } }));
    expect(await answer).toMatchObject({ id: "del-unknown", result: {} });
  });

  it("fork: a new session whose first prompt carries the source's history; the source goes on alone", async () => {
    await start("Noted: 42.", "It was 42.", "source again");
    const source = await adapter!.newSession();
    await adapter!.prompt(source.sessionId, "remember the number 42");
    const fork = (await adapter!.agent.request("session/fork", { sessionId: source.sessionId, cwd: adapter!.workspace, mcpServers: [] })) as acp.NewSessionResponse;
    expect(fork).toMatchObject({ sessionId: expect.any(String), modes: { currentModeId: "auto" } });
    expect(fork.sessionId).not.toBe(source.sessionId);
    expect((await adapter!.prompt(fork.sessionId, "what was the number?")).stopReason).toBe("end_turn");
    const forkInput = JSON.stringify(adapter!.fake.requests[1]!.body.input);
    expect(forkInput).toContain("remember the number 42");
    expect(forkInput).toContain("Noted: 42.");
    await adapter!.prompt(source.sessionId, "and now?");
    expect(JSON.stringify(adapter!.fake.requests[2]!.body.input)).not.toContain("what was the number?");
    await expect(adapter!.agent.request("session/fork", { sessionId: "01a00000-0000-7000-8000-000000000000", cwd: adapter!.workspace })).rejects.toMatchObject({ code: -32002 });
  });

  it("set_title names the session: the client hears it, the list shows it; empty titles are refused", async () => {
    await start("hello");
    const { sessionId } = await adapter!.newSession();
    await adapter!.prompt(sessionId, "first message");
    expect(await adapter!.agent.request("session/set_title", { sessionId, title: "  Cache   work " })).toEqual({ title: "Cache work" });
    await waitFor(() => adapter!.updatesOf(sessionId).some((u) => u.sessionUpdate === "session_info_update" && u.title === "Cache work"), "the title update");
    expect((await listed()).find((s) => s.sessionId === sessionId)?.title).toBe("Cache work");
    await expect(adapter!.agent.request("session/set_title", { sessionId, title: "   " })).rejects.toMatchObject({ code: -32602 });
    await expect(adapter!.agent.request("session/set_title", { sessionId: "01a00000-0000-7000-8000-000000000000", title: "x" })).rejects.toMatchObject({ code: -32002 });
  });

  it("/rename renames the session it is typed in", async () => {
    await start("hi");
    const { sessionId } = await adapter!.newSession();
    await adapter!.prompt(sessionId, "something to list");
    expect((await adapter!.prompt(sessionId, "/rename Release notes")).stopReason).toBe("end_turn");
    expect((await listed()).find((s) => s.sessionId === sessionId)?.title).toBe("Release notes");
    expect(adapter!.fake.requests).toHaveLength(1);
  });
});
