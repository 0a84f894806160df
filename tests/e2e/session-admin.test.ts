// Issue 13: managing sessions from the editor: delete (stable), fork and set_title (unstable), /rename.
// Issue 28 (B): archive, unarchive and status (unstable), and delete beside them.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { messageText, startAdapter, type Adapter } from "../support/adapter.js";
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
/** session/list with ACP's unstable archive filter, every page. */
async function listedAll(archived?: string): Promise<Array<acp.SessionInfo & { archived?: boolean | null }>> {
  const all: Array<acp.SessionInfo & { archived?: boolean | null }> = [];
  let cursor: string | null | undefined;
  do {
    const page = await adapter!.agent.request<acp.ListSessionsResponse>("session/list", {
      ...(archived ? { archived } : {}),
      ...(cursor ? { cursor } : {}),
    });
    all.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}
const statusOf = async (sessionId: string) =>
  (await adapter!.agent.request<{ status: string }>("session/status", { sessionId })).status;
const UNKNOWN_ID = "01a00000-0000-7000-8000-000000000000";

/** A session that answered `first` to its first prompt and is now streaming an answer that never ends. */
async function sessionWithAHangingPrompt(
  first: string,
  firstPrompt: string,
): Promise<{ sessionId: string; running: Promise<acp.PromptResponse> }> {
  await start(first);
  adapter!.fake.enqueue({
    items: [{ type: "message", text: "a long answer that never ends", deltas: 6 }],
    delayMs: 100,
    hang: true,
  });
  const { sessionId } = await adapter!.newSession();
  await adapter!.prompt(sessionId, firstPrompt);
  return { sessionId, running: adapter!.prompt(sessionId, "talk forever") };
}

/** A session of one turn ("remember the number 42") with a fork of it that has a turn of its own: Codex will not delete the source. */
async function sourceOfAFork(): Promise<{ sessionId: string; fork: string }> {
  await start("Noted: 42.", "fork answer", "It was 42.");
  const source = await adapter!.newSession();
  await adapter!.prompt(source.sessionId, "remember the number 42");
  const fork = await adapter!.agent.request<acp.NewSessionResponse>("session/fork", {
    sessionId: source.sessionId,
    cwd: adapter!.workspace,
    mcpServers: [],
  });
  await adapter!.prompt(fork.sessionId, "in the fork");
  return { sessionId: source.sessionId, fork: fork.sessionId };
}

/** The files under CODEX_HOME whose name holds `id` (Codex's rollouts, our memories). */
async function filesOf(id: string): Promise<string[]> {
  const all = await readdir(adapter!.home.codexHome, { recursive: true });
  return all.filter((f) => f.includes(id));
}

/** The user-visible text of a session's history: the user's and the agent's messages, in order. */
const conversation = (updates: acp.SessionUpdate[]) =>
  updates.flatMap((u) =>
    (u.sessionUpdate === "user_message_chunk" || u.sessionUpdate === "agent_message_chunk") && u.content.type === "text"
      ? [u.content.text]
      : [],
  );

describe("session management", () => {
  it("delete, fork, title, archive and status are advertised", async () => {
    const init = await start();
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({
      list: {},
      delete: {},
      fork: {},
      title: {},
      archive: {},
      status: {},
    });
  });

  it("archive closes an open session and hides it from the list; the archive filter shows it; unarchive brings it back; status says where it is", async () => {
    await start("a", "b", "a again");
    const a = (await adapter!.newSession()).sessionId;
    await adapter!.prompt(a, "first");
    const b = (await adapter!.newSession()).sessionId;
    await adapter!.prompt(b, "second");
    expect(await statusOf(a)).toBe("open");

    expect(await adapter!.agent.request("session/archive", { sessionId: a })).toEqual({});
    expect(await statusOf(a)).toBe("saved");
    expect((await listedAll()).map((s) => [s.sessionId, s.archived])).toEqual([[b, false]]);
    expect((await listedAll("exclude")).map((s) => [s.sessionId, s.archived])).toEqual([[b, false]]);
    expect((await listedAll("only")).map((s) => [s.sessionId, s.archived])).toEqual([[a, true]]);
    expect((await listedAll("include")).map((s) => [s.sessionId, s.archived])).toEqual([
      [b, false],
      [a, true],
    ]);
    // Closed as session/close would: its prompts are refused, and it cannot be loaded until unarchived.
    await expect(adapter!.prompt(a, "still there?")).rejects.toMatchObject({ code: -32002 });
    await expect(
      adapter!.agent.request(acp.methods.agent.session.load, { sessionId: a, cwd: adapter!.workspace, mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining("is archived: unarchive it (session/unarchive) first"),
    });
    expect(await statusOf(a)).toBe("saved");
    // Idempotent.
    expect(await adapter!.agent.request("session/archive", { sessionId: a })).toEqual({});

    expect(await adapter!.agent.request("session/unarchive", { sessionId: a })).toEqual({});
    expect(await adapter!.agent.request("session/unarchive", { sessionId: a })).toEqual({});
    expect((await listedAll()).map((s) => s.sessionId).sort()).toEqual([a, b].sort());
    expect(await listedAll("only")).toEqual([]);
    expect(await statusOf(a)).toBe("saved");
    await adapter!.agent.request(acp.methods.agent.session.load, {
      sessionId: a,
      cwd: adapter!.workspace,
      mcpServers: [],
    });
    expect(await statusOf(a)).toBe("open");
    expect((await adapter!.prompt(a, "back")).stopReason).toBe("end_turn");
  });

  it("archive during a prompt ends that prompt as cancelled, then archives the session", async () => {
    const { sessionId, running: pending } = await sessionWithAHangingPrompt("stored", "first");
    await adapter!.waitForLine(
      (m) => m.method === "session/update" && JSON.stringify(m).includes("agent_message_chunk"),
    );
    expect(await adapter!.agent.request("session/archive", { sessionId })).toEqual({});
    expect((await pending).stopReason).toBe("cancelled");
    expect(await statusOf(sessionId)).toBe("saved");
    expect((await listedAll("only")).map((s) => s.sessionId)).toEqual([sessionId]);
  });

  it("archive, unarchive and status of an unknown session are -32002 naming it; an unknown archive filter is -32602", async () => {
    await start();
    for (const method of ["session/archive", "session/unarchive", "session/status"]) {
      await expect(adapter!.agent.request(method, { sessionId: UNKNOWN_ID }), method).rejects.toMatchObject({
        code: -32002,
        data: { sessionId: UNKNOWN_ID },
      });
    }
    await expect(adapter!.agent.request("session/list", { archived: "everything" })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("a session never prompted (Codex keeps nothing of it) is open until archived, then gone", async () => {
    await start();
    const { sessionId } = await adapter!.newSession();
    expect(await statusOf(sessionId)).toBe("open");
    expect(await adapter!.agent.request("session/archive", { sessionId })).toEqual({});
    await expect(adapter!.agent.request("session/status", { sessionId })).rejects.toMatchObject({ code: -32002 });
    // Deleted as well: closed, and gone.
    const other = (await adapter!.newSession()).sessionId;
    expect(await adapter!.agent.request(acp.methods.agent.session.delete, { sessionId: other })).toEqual({});
    await expect(adapter!.agent.request("session/status", { sessionId: other })).rejects.toMatchObject({
      code: -32002,
    });
    await expect(adapter!.prompt(other, "still there?")).rejects.toMatchObject({ code: -32002 });
  });

  it("the archive filter pages like the default list: include walks the unarchived sessions, then the archived ones", async () => {
    adapter = await startAdapter({ env: { CODEX_ACP_SESSION_LIST_PAGE_SIZE: "1" } });
    adapter.fake.enqueue(textResponse("1"), textResponse("2"), textResponse("3"));
    await adapter.initialize();
    const ids: string[] = [];
    for (const text of ["one", "two", "three"]) {
      const { sessionId } = await adapter.newSession();
      await adapter.prompt(sessionId, text);
      ids.push(sessionId);
    }
    await adapter.agent.request("session/archive", { sessionId: ids[0]! });
    await adapter.agent.request("session/archive", { sessionId: ids[1]! });
    expect((await listedAll("include")).map((s) => [s.sessionId, s.archived])).toEqual([
      [ids[2], false],
      [ids[1], true],
      [ids[0], true],
    ]);
    expect((await listedAll("only")).map((s) => s.sessionId)).toEqual([ids[1], ids[0]]);
  });

  it("delete removes a session for good, archived or not: no list shows it, and status no longer knows it", async () => {
    await start("x", "y");
    const kept = (await adapter!.newSession()).sessionId;
    await adapter!.prompt(kept, "kept");
    const archived = (await adapter!.newSession()).sessionId;
    await adapter!.prompt(archived, "archived, then deleted");
    // Both ran in Auto, which the modes remember for each (a folder Codex does not trust resumes it read-only).
    const memory = path.join(adapter!.home.codexHome, "codex-cli-acp", "session-modes");
    await waitFor(async () => (await readdir(memory).catch(() => [])).length === 2, "a mode memory for each session");
    await adapter!.agent.request("session/archive", { sessionId: archived });
    expect(await adapter!.agent.request(acp.methods.agent.session.delete, { sessionId: archived })).toEqual({});
    expect(await listedAll("include")).toEqual([expect.objectContaining({ sessionId: kept, archived: false })]);
    await expect(adapter!.agent.request("session/status", { sessionId: archived })).rejects.toMatchObject({
      code: -32002,
    });
    expect(await adapter!.agent.request(acp.methods.agent.session.delete, { sessionId: kept })).toEqual({});
    expect(await listedAll("include")).toEqual([]);
    await expect(adapter!.agent.request("session/unarchive", { sessionId: kept })).rejects.toMatchObject({
      code: -32002,
    });
    // Nothing kept of them either: the modes' memory of each is gone.
    expect(await readdir(memory)).toEqual([]);
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
    adapter!.writeRaw(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "del-unknown",
        method: "session/delete",
        params: { sessionId: UNKNOWN_ID },
      }),
    );
    expect(await answer).toMatchObject({ id: "del-unknown", result: {} });
  });

  it("deleting a session a fork's history uses succeeds: it is in no list and found by no request, the fork keeps its whole history, and Codex deletes it with the fork", async () => {
    const { sessionId, fork } = await sourceOfAFork();
    expect(await adapter!.agent.request(acp.methods.agent.session.delete, { sessionId })).toEqual({});
    for (const filter of [undefined, "include", "only"])
      expect(
        (await listedAll(filter)).map((s) => s.sessionId),
        filter,
      ).toEqual(filter === "only" ? [] : [fork]);
    await expect(adapter!.prompt(sessionId, "still there?")).rejects.toMatchObject({ code: -32002 });
    await expect(
      adapter!.agent.request(acp.methods.agent.session.load, { sessionId, cwd: adapter!.workspace, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002, message: expect.stringContaining(`${sessionId} was deleted`) });
    await expect(
      adapter!.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: adapter!.workspace }),
    ).rejects.toMatchObject({ code: -32002 });
    for (const method of ["session/status", "session/archive", "session/unarchive"]) {
      await expect(adapter!.agent.request(method, { sessionId }), method).rejects.toMatchObject({ code: -32002 });
    }
    await expect(
      adapter!.agent.request("session/fork", { sessionId, cwd: adapter!.workspace, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(adapter!.agent.request("session/set_title", { sessionId, title: "x" })).rejects.toMatchObject({
      code: -32002,
    });
    // Deleting it again succeeds (idempotent).
    expect(await adapter!.agent.request(acp.methods.agent.session.delete, { sessionId })).toEqual({});
    // What Codex still needs of it stays on disk: the fork loads whole, and its next prompt carries it all.
    expect(await filesOf(sessionId)).not.toEqual([]);
    await adapter!.agent.request(acp.methods.agent.session.close, { sessionId: fork });
    const seen = adapter!.updatesOf(fork).length;
    await adapter!.agent.request(acp.methods.agent.session.load, {
      sessionId: fork,
      cwd: adapter!.workspace,
      mcpServers: [],
    });
    expect(conversation(adapter!.updatesOf(fork).slice(seen))).toEqual([
      "remember the number 42",
      "Noted: 42.",
      "in the fork",
      "fork answer",
    ]);
    expect((await adapter!.prompt(fork, "what was the number?")).stopReason).toBe("end_turn");
    const input = JSON.stringify(adapter!.fake.requests.at(-1)!.body.input);
    for (const text of ["remember the number 42", "Noted: 42.", "in the fork", "what was the number?"])
      expect(input).toContain(text);
    // Once nothing reads it (the fork deleted), Codex deletes it too: nothing of either is left.
    expect(await adapter!.agent.request(acp.methods.agent.session.delete, { sessionId: fork })).toEqual({});
    expect(await listedAll("include")).toEqual([]);
    expect(await filesOf(sessionId)).toEqual([]);
    expect(await filesOf(fork)).toEqual([]);
  });

  it("a prompt sent while session/delete is under way is refused as for a closed session (-32002), not run on a thread being deleted", async () => {
    const { sessionId, running } = await sessionWithAHangingPrompt("Noted.", "delete me");
    await waitFor(
      () => messageText(adapter!.updatesOf(sessionId)).length > "Noted.".length,
      "the long answer streaming",
    );
    const deleting = adapter!.agent.request(acp.methods.agent.session.delete, { sessionId });
    // Sent as the running prompt is answered (the delete cancelled it): the delete is under way.
    const late = running.then((r) => {
      expect(r.stopReason).toBe("cancelled");
      return adapter!.prompt(sessionId, "sent during the delete");
    });
    await expect(late).rejects.toMatchObject({ code: -32002 });
    expect(await deleting).toEqual({});
    expect(adapter!.fake.requests).toHaveLength(2);
  });

  it("a session/delete sent while the same session is loading waits for the load, then deletes what it opened", async () => {
    const source = await sourceOfAFork();
    await adapter!.agent.request(acp.methods.agent.session.close, { sessionId: source.sessionId });
    // The delete goes as the history starts streaming: Codex is resuming the thread for the load then.
    const seen = adapter!.updatesOf(source.sessionId).length;
    const loading = adapter!.agent.request(acp.methods.agent.session.load, {
      sessionId: source.sessionId,
      cwd: adapter!.workspace,
      mcpServers: [],
    });
    await waitFor(() => adapter!.updatesOf(source.sessionId).length > seen, "the history streaming");
    const deleting = adapter!.agent.request(acp.methods.agent.session.delete, { sessionId: source.sessionId });
    await loading;
    expect(await deleting).toEqual({});
    await expect(adapter!.prompt(source.sessionId, "what was the number?")).rejects.toMatchObject({ code: -32002 });
    await expect(adapter!.agent.request("session/status", { sessionId: source.sessionId })).rejects.toMatchObject({
      code: -32002,
    });
    expect((await listedAll("include")).map((s) => s.sessionId)).toEqual([source.fork]);
  });

  it("fork: a new session whose first prompt carries the source's history; the source goes on alone", async () => {
    await start("Noted: 42.", "It was 42.", "source again");
    const source = await adapter!.newSession();
    await adapter!.prompt(source.sessionId, "remember the number 42");
    const fork = await adapter!.agent.request<acp.NewSessionResponse>("session/fork", {
      sessionId: source.sessionId,
      cwd: adapter!.workspace,
      mcpServers: [],
    });
    expect(fork).toMatchObject({ sessionId: expect.any(String), modes: { currentModeId: "auto" } });
    expect(fork.sessionId).not.toBe(source.sessionId);
    expect((await adapter!.prompt(fork.sessionId, "what was the number?")).stopReason).toBe("end_turn");
    const forkInput = JSON.stringify(adapter!.fake.requests[1]!.body.input);
    expect(forkInput).toContain("remember the number 42");
    expect(forkInput).toContain("Noted: 42.");
    await adapter!.prompt(source.sessionId, "and now?");
    expect(JSON.stringify(adapter!.fake.requests[2]!.body.input)).not.toContain("what was the number?");
    await expect(
      adapter!.agent.request("session/fork", {
        sessionId: "01a00000-0000-7000-8000-000000000000",
        cwd: adapter!.workspace,
      }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it("set_title names the session: the client hears it, the list shows it; empty titles are refused", async () => {
    await start("hello");
    const { sessionId } = await adapter!.newSession();
    await adapter!.prompt(sessionId, "first message");
    expect(await adapter!.agent.request("session/set_title", { sessionId, title: "  Cache   work " })).toEqual({
      title: "Cache work",
    });
    await waitFor(
      () =>
        adapter!
          .updatesOf(sessionId)
          .some((u) => u.sessionUpdate === "session_info_update" && u.title === "Cache work"),
      "the title update",
    );
    expect((await listed()).find((s) => s.sessionId === sessionId)?.title).toBe("Cache work");
    await expect(adapter!.agent.request("session/set_title", { sessionId, title: "   " })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(
      adapter!.agent.request("session/set_title", { sessionId: "01a00000-0000-7000-8000-000000000000", title: "x" }),
    ).rejects.toMatchObject({ code: -32002 });
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
