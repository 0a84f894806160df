// Issue 5: sessions that last. Real codex, fake model, SDK client; two adapter processes
// sharing one CODEX_HOME stand for "closed the editor and came back".
import { mkdtemp, mkdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import {
  applyPatch,
  createCodexHome,
  startFakeModel,
  textResponse,
  toolCall,
  type CodexHome,
  type FakeModel,
} from "../../tools/fake-model/index.js";
import { messageText, startAdapter, type Adapter, type AdapterOptions } from "../support/adapter.js";
import { waitFor } from "../support/wait-for.js";

let fake: FakeModel;
let home: CodexHome;
let workspace: string;
const adapters: Adapter[] = [];
/** Folders a test made besides the workspace, removed after it. */
const dirs: string[] = [];

beforeEach(async () => {
  fake = await startFakeModel([]);
  home = await createCodexHome({ modelUrl: fake.url });
  workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-life-")));
});

afterEach(async () => {
  for (const a of adapters.splice(0)) await a.close();
  await fake.close();
  await home.cleanup();
  for (const d of [workspace, ...dirs.splice(0)]) await rm(d, { recursive: true, force: true });
});

async function adapter(opts: Partial<AdapterOptions> = {}): Promise<Adapter> {
  const a = await startAdapter({ fake, home, workspace, ...opts });
  adapters.push(a);
  await a.initialize();
  return a;
}

/** A session of one turn made by an adapter process that has ended since: what an editor reopens. */
async function storedSession(prompt: string, answer: string): Promise<string> {
  fake.enqueue(textResponse(answer));
  const first = await adapter();
  const { sessionId } = await first.newSession();
  await first.prompt(sessionId, prompt);
  await first.close();
  adapters.splice(adapters.indexOf(first), 1);
  return sessionId;
}

const listAll = async (a: Adapter, params: acp.ListSessionsRequest = {}) =>
  a.agent.request(acp.methods.agent.session.list, params);
/** The kinds of update that carry the conversation (not titles, modes, commands, usage). */
const HISTORY = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
]);
const textOf = (u: acp.SessionUpdate): string =>
  "content" in u && u.content && !Array.isArray(u.content) && u.content.type === "text" ? u.content.text : "";

describe("session/load, list, resume, close", () => {
  it("advertises exactly what is implemented", async () => {
    const a = await startAdapter({ fake, home, workspace });
    adapters.push(a);
    const init = await a.initialize();
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(Object.keys(init.agentCapabilities?.sessionCapabilities ?? {}).sort()).toEqual([
      "additionalDirectories",
      "archive",
      "close",
      "delete",
      "fork",
      "list",
      "resume",
      "status",
      "systemPrompt",
      "title",
    ]);
  });

  it("a session made in one process is listed, loaded with its whole history, and continued in another", async () => {
    fake.enqueue(
      {
        items: [
          { type: "reasoning", summary: "I should run echo" },
          toolCall("exec_command", { cmd: "echo hi-from-history" }, { callId: "call_hist_exec" }),
        ],
      },
      textResponse("The command printed hi-from-history.", { deltas: 3 }),
    );
    const first = await adapter();
    const { sessionId } = await first.newSession();
    expect((await first.prompt(sessionId, "please run echo for me")).stopReason).toBe("end_turn");
    // The first user message names the session (codex 0.169 does not name threads itself).
    const info = first.updatesOf(sessionId).filter((u) => u.sessionUpdate === "session_info_update");
    expect(info).toHaveLength(1);
    expect(info[0]).toMatchObject({
      title: "please run echo for me",
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    await first.close();
    adapters.splice(adapters.indexOf(first), 1);

    const second = await adapter();
    const listed = await listAll(second);
    const entry = listed.sessions.find((s) => s.sessionId === sessionId);
    expect(entry).toMatchObject({ sessionId, cwd: workspace, title: "please run echo for me" });
    expect(new Date(entry!.updatedAt!).toISOString()).toBe(entry!.updatedAt);

    const linesBefore = second.stdoutLines.length;
    await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    // Everything was replayed before the response: the updates are already here, in order.
    const replayed = second.updatesOf(sessionId).filter((u) => HISTORY.has(u.sessionUpdate));
    expect(replayed.map((u) => u.sessionUpdate)).toEqual([
      "user_message_chunk",
      "agent_thought_chunk",
      "tool_call",
      "agent_message_chunk",
    ]);
    expect(replayed[0]).toMatchObject({ content: { type: "text", text: "please run echo for me" } });
    expect(textOf(replayed[1]!)).toBe("I should run echo");
    const tool = replayed[2] as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>;
    expect(tool).toMatchObject({
      toolCallId: "call_hist_exec",
      kind: "execute",
      status: "completed",
      title: expect.stringContaining("echo hi-from-history"),
    });
    expect(
      tool.content?.map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join(""),
    ).toContain("hi-from-history\n");
    expect(tool.rawOutput).toMatchObject({ exitCode: 0 });
    expect(textOf(replayed[3]!)).toBe("The command printed hi-from-history.");
    expect(second.updatesOf(sessionId).find((u) => u.sessionUpdate === "session_info_update")).toMatchObject({
      title: "please run echo for me",
    });
    // On the wire, the load's response comes after the last replayed update.
    const wire = second.stdoutLines
      .slice(linesBefore)
      .map((l) => JSON.parse(l) as { method?: string; result?: unknown });
    const responseAt = wire.findIndex((m) => "result" in m);
    expect(
      wire
        .slice(0, responseAt)
        .filter(
          (m) =>
            m.method === "session/update" &&
            HISTORY.has((m as { params: { update: acp.SessionUpdate } }).params.update.sessionUpdate),
        ),
    ).toHaveLength(replayed.length);
    expect(wire.slice(responseAt).some((m) => m.method === "session/update")).toBe(false);
    // Codex remembers: the next model request carries the earlier turn.
    fake.enqueue(textResponse("continued"));
    const before = fake.requests.length;
    const seen = second.updatesOf(sessionId).length;
    expect((await second.prompt(sessionId, "and now?")).stopReason).toBe("end_turn");
    const input = JSON.stringify(fake.requests[before]!.body.input);
    expect(input).toContain("please run echo for me");
    expect(input).toContain("call_hist_exec");
    expect(input).toContain("hi-from-history");
    expect(input).toContain("The command printed hi-from-history.");
    expect(input).toContain("and now?");
    expect(messageText(second.updatesOf(sessionId).slice(seen))).toBe("continued");
    // A loaded session that already has a title is not renamed by its next message.
    expect(second.updatesOf(sessionId).filter((u) => u.sessionUpdate === "session_info_update")).toHaveLength(1);
  });

  it("a file change is replayed as a completed edit with Codex's stored hunks, not today's file", async () => {
    fake.enqueue(
      {
        items: [
          applyPatch("*** Begin Patch\n*** Add File: hello.txt\n+hello from history\n*** End Patch", {
            callId: "call_hist_patch",
          }),
        ],
      },
      textResponse("added it"),
    );
    const first = await adapter();
    const { sessionId } = await first.newSession();
    expect((await first.prompt(sessionId, "add hello.txt")).stopReason).toBe("end_turn");
    expect(await readFile(path.join(workspace, "hello.txt"), "utf8")).toBe("hello from history\n");
    await writeFile(path.join(workspace, "hello.txt"), "changed since\n");
    await first.close();
    adapters.splice(adapters.indexOf(first), 1);

    const second = await adapter();
    await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    const tool = second.updatesOf(sessionId).find((u) => u.sessionUpdate === "tool_call") as Extract<
      acp.SessionUpdate,
      { sessionUpdate: "tool_call" }
    >;
    expect(tool).toMatchObject({ toolCallId: "call_hist_patch", kind: "edit", status: "completed" });
    expect(tool.locations?.map((l) => l.path)).toEqual([path.join(workspace, "hello.txt")]);
    const shown = JSON.stringify(tool.content);
    expect(shown).toContain("hello from history");
    expect(shown).not.toContain("changed since");
    expect(
      second
        .updatesOf(sessionId)
        .filter((u) => u.sessionUpdate === "tool_call_update" || u.sessionUpdate === "tool_call"),
    ).toHaveLength(1);
  });

  it("session/resume reopens without replaying; the conversation continues", async () => {
    const sessionId = await storedSession("remember the word walrus", "first answer");

    // The editor reopens it from another folder: the request's cwd wins.
    const moved = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-life-moved-")));
    dirs.push(moved);
    const second = await adapter();
    await second.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: moved });
    expect(second.updatesOf(sessionId).filter((u) => HISTORY.has(u.sessionUpdate))).toEqual([]);
    fake.enqueue(textResponse("it was walrus"));
    const before = fake.requests.length;
    expect((await second.prompt(sessionId, "which word?")).stopReason).toBe("end_turn");
    const input = JSON.stringify(fake.requests[before]!.body.input);
    expect(input).toContain("remember the word walrus");
    expect(input).toContain("first answer");
    expect(input).toContain(`<cwd>${moved}</cwd>`);
  });

  it("loading an unknown session id is resource-not-found and creates nothing", async () => {
    fake.enqueue(textResponse("hello"));
    const a = await adapter();
    const { sessionId } = await a.newSession();
    await a.prompt(sessionId, "one real session");
    const before = await listAll(a);
    for (const unknown of ["01a1fdb3-0000-7000-8000-000000000000", "not-a-thread-id"]) {
      await expect(
        a.agent.request(acp.methods.agent.session.load, { sessionId: unknown, cwd: workspace, mcpServers: [] }),
      ).rejects.toMatchObject({
        code: -32002,
        message: expect.stringContaining(unknown),
      });
      await expect(
        a.agent.request(acp.methods.agent.session.resume, { sessionId: unknown, cwd: workspace }),
      ).rejects.toMatchObject({ code: -32002 });
      expect(a.updatesOf(unknown)).toEqual([]);
    }
    expect(await listAll(a)).toEqual(before);
    expect(before.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
  });

  it("session/close frees the session: a later prompt gets a clear error; load brings it back", async () => {
    fake.enqueue(textResponse("before close"), textResponse("after reload"));
    const a = await adapter();
    const { sessionId } = await a.newSession();
    await a.prompt(sessionId, "hello");
    await a.agent.request(acp.methods.agent.session.close, { sessionId });
    await expect(a.prompt(sessionId, "are you there?")).rejects.toMatchObject({
      code: -32002,
      message: expect.stringMatching(/Session not found.*closed/),
      data: { sessionId },
    });
    // Closing is idempotent from the client's side (the SDK maps -32002 to success)...
    await a.agent.request(acp.methods.agent.session.close, { sessionId });
    // ...and the history is still on disk.
    await a.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    expect((await a.prompt(sessionId, "back again")).stopReason).toBe("end_turn");
    expect(messageText(a.updatesOf(sessionId))).toBe("before closebefore closeafter reload");
  });

  it("session/close sent while the session is still loading closes it once the load is over: not left open", async () => {
    const sessionId = await storedSession("hello", "stored answer");

    const second = await adapter();
    const load = second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    const close = second.agent.request(acp.methods.agent.session.close, { sessionId });
    await load;
    await close;
    const lines = second.stdoutLines.length;
    await expect(second.prompt(sessionId, "still there?")).rejects.toMatchObject({ code: -32002 });
    // Nothing of the session after its close's answer but that refusal.
    expect(second.stdoutLines.slice(lines).some((l) => l.includes('"session/update"'))).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it("two loads of the same session at once replay its history one after the other, each whole, not interleaved", async () => {
    // Enough turns for several pages of history (the first page holds 8 items): each load streams
    // page by page, so two at once would interleave their pages.
    const turns = 8;
    for (let i = 0; i < turns; i++) fake.enqueue(textResponse(`answer ${i}`));
    const first = await adapter();
    const { sessionId } = await first.newSession();
    for (let i = 0; i < turns; i++) await first.prompt(sessionId, `question ${i}`);
    await first.close();
    adapters.splice(adapters.indexOf(first), 1);

    const second = await adapter();
    const lines = second.stdoutLines.length;
    const load = () =>
      second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    await Promise.all([load(), load()]);
    const once = Array.from({ length: turns }, (_, i) => [`question ${i}`, `answer ${i}`]).flat();
    // On the wire: one whole history, its load's answer, then the other whole history and answer.
    const wire = second.stdoutLines
      .slice(lines)
      .map((l) => JSON.parse(l) as { method?: string; result?: unknown; params?: { update: acp.SessionUpdate } });
    const shown = wire.flatMap((m) =>
      "result" in m
        ? ["(answered)"]
        : m.method === "session/update" && HISTORY.has(m.params!.update.sessionUpdate)
          ? [textOf(m.params!.update)]
          : [],
    );
    expect(shown).toEqual([...once, "(answered)", ...once, "(answered)"]);
    // The session is open once, and works.
    fake.enqueue(textResponse("still here"));
    expect((await second.prompt(sessionId, "and now?")).stopReason).toBe("end_turn");
  });

  it("session/close during a prompt ends that prompt as cancelled", async () => {
    fake.enqueue({
      items: [{ type: "message", text: "a long answer that never ends", deltas: 6 }],
      delayMs: 100,
      hang: true,
    });
    const a = await adapter();
    const { sessionId } = await a.newSession();
    const pending = a.prompt(sessionId, "talk forever");
    await a.waitForLine((m) => m.method === "session/update" && JSON.stringify(m).includes("agent_message_chunk"));
    await a.agent.request(acp.methods.agent.session.close, { sessionId });
    expect((await pending).stopReason).toBe("cancelled");
    await expect(a.prompt(sessionId, "hello?")).rejects.toMatchObject({ code: -32002 });
  });

  it("a prompt sent while session/close is ending the running one is refused, not run after it", async () => {
    fake.enqueue(
      { items: [{ type: "message", text: "a long answer that never ends", deltas: 6 }], delayMs: 100, hang: true },
      {
        items: [toolCall("exec_command", { cmd: "echo ran > after-close.txt" }, { callId: "late" })],
      },
    );
    const a = await adapter();
    const { sessionId } = await a.newSession();
    const pending = a.prompt(sessionId, "talk forever");
    await a.waitForLine((m) => m.method === "session/update" && JSON.stringify(m).includes("agent_message_chunk"));
    const close = a.agent.request(acp.methods.agent.session.close, { sessionId });
    // Sent as the running prompt is answered: the close is still letting go of the session.
    const late = pending.then((r) => {
      expect(r.stopReason).toBe("cancelled");
      return a.prompt(sessionId, "sent after session/close");
    });
    await expect(late).rejects.toMatchObject({ code: -32002 });
    await close;
    // Codex heard nothing of it: no model request, no command run.
    await new Promise((r) => setTimeout(r, 500));
    expect(fake.requests).toHaveLength(1);
    expect(existsSync(path.join(workspace, "after-close.txt"))).toBe(false);
  });

  it("a loaded session shows its context usage every time (Codex reports it while resuming, before the session exists)", async () => {
    fake.enqueue(textResponse("one turn"));
    const a = await adapter();
    const { sessionId } = await a.newSession();
    await a.prompt(sessionId, "hello");
    for (let load = 1; load <= 4; load++) {
      await a.agent.request(acp.methods.agent.session.close, { sessionId });
      const before = a.updatesOf(sessionId).length;
      await a.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
      await waitFor(
        () =>
          a
            .updatesOf(sessionId)
            .slice(before)
            .some((u) => u.sessionUpdate === "usage_update"),
        `a usage_update after load ${load}`,
        5_000,
      );
    }
  });

  it("lists page by page with a cursor, newest first, and filters by cwd", async () => {
    const other = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-life-other-")));
    dirs.push(other);
    await mkdir(other, { recursive: true });
    const a = await adapter({ env: { CODEX_ACP_SESSION_LIST_PAGE_SIZE: "2" } });
    const made: string[] = [];
    for (const [i, cwd] of [workspace, other, workspace].entries()) {
      const { sessionId } = await a.newSession(cwd);
      await a.prompt(sessionId, `session number ${i}`);
      made.push(sessionId);
      // updatedAt has a resolution of one second: a sleep that is part of the scenario (sessions a
      // second apart, so their order is known), not a wait for something to happen.
      if (i < 2) await new Promise((r) => setTimeout(r, 1100));
    }
    const page1 = await listAll(a);
    expect(page1.sessions).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = await listAll(a, { cursor: page1.nextCursor! });
    expect(page2.nextCursor ?? null).toBeNull();
    const all = [...page1.sessions, ...page2.sessions];
    expect(all.map((s) => s.sessionId)).toEqual([...made].reverse());
    expect(all.map((s) => s.title)).toEqual(["session number 2", "session number 1", "session number 0"]);
    const inWorkspace = await listAll(a, { cwd: workspace });
    expect(inWorkspace.sessions.map((s) => s.sessionId)).toEqual([made[2], made[0]]);
    expect(inWorkspace.sessions.every((s) => s.cwd === workspace)).toBe(true);
    const inOther = await listAll(a, { cwd: `${other}/` });
    expect(inOther.sessions.map((s) => s.sessionId)).toEqual([made[1]]);
    await expect(listAll(a, { cwd: "relative/dir" })).rejects.toMatchObject({ code: -32602 });
  });
});
