// Issue 29: ACP v2 beside v1 in one process. A client that asks for protocol 2 at initialize is
// served the v2 draft (the SDK's v2 client API drives it here): turns end in `state_update`,
// messages carry ids, tool calls are upserts, commands are agent-owned terminals, patches are file
// states with a git patch and, where the mode asks, a permission whose subject carries the change
// before anything is written. A v1 client of the same build sees v1.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { applyPatch, textResponse, toolCall, type ScriptedResponse } from "../../tools/fake-model/index.js";
import { spawnAgent, startAdapter, type Adapter } from "../support/adapter.js";
import { startV2Adapter, type V2Adapter, type V2Answer } from "../support/adapter-v2.js";
import { v2Violations } from "../support/v2-schema.js";
import { waitFor } from "../support/wait-for.js";

let adapter: V2Adapter | undefined;
let v1Adapter: Adapter | undefined;
afterEach(async () => {
  // Every message the agent sent the v2 client is v2 as the SDK's schema says.
  const violations = adapter ? await v2Violations(adapter.stdoutLines) : [];
  await adapter?.close();
  await v1Adapter?.close();
  adapter = v1Adapter = undefined;
  expect(violations).toEqual([]);
});

const done: ScriptedResponse = textResponse("finished");
const escalated = (cmd: string, callId: string) =>
  toolCall(
    "exec_command",
    { cmd, sandbox_permissions: "require_escalated", justification: "needs to write" },
    { callId },
  );
type Update<K extends string> = Extract<v2.SessionUpdate, { sessionUpdate: K }>;
/** The tool call a permission request is about (its subject). */
const subjectCall = (r: v2.RequestPermissionRequest): Update<"tool_call_update"> | undefined =>
  r.subject?.type === "tool_call" && "toolCall" in r.subject
    ? (r.subject.toolCall as Update<"tool_call_update">)
    : undefined;
const ofKind = <K extends v2.SessionUpdate["sessionUpdate"]>(updates: v2.SessionUpdate[], kind: K): Update<K>[] =>
  updates.filter((u): u is Update<K> => u.sessionUpdate === kind);

async function v2Session(
  responses: ScriptedResponse[],
  answer?: V2Answer,
): Promise<{ a: V2Adapter; sessionId: string; session: v2.NewSessionResponse; init: v2.InitializeResponse }> {
  adapter = await startV2Adapter({ responses, ...(answer ? { answer } : {}) });
  const init = await adapter.initialize();
  expect(init.protocolVersion).toBe(2);
  const session = await adapter.newSession();
  return { a: adapter, sessionId: session.sessionId, session, init };
}

describe("ACP v2", () => {
  it("negotiates v2 at initialize; a text turn is acknowledged with the user's message id and ends in an idle state_update", async () => {
    const { a, sessionId, session, init } = await v2Session([textResponse("hello from codex")]);
    expect(init).toMatchObject({
      protocolVersion: 2,
      info: { name: "codex-cli-acp" },
      capabilities: { session: { mcp: { stdio: {}, http: {} } } },
    });
    // The mode is a config option (v2 has no modes), with the Review Edits choice.
    const mode = session.configOptions?.find((o) => o.configId === "mode");
    expect(mode).toMatchObject({ type: "select", currentValue: "auto" });
    expect(JSON.stringify(mode)).toContain("review-edits");
    expect(session).not.toHaveProperty("modes");

    const { answer, idle } = await a.turn(sessionId, "say hello");
    expect(idle).toMatchObject({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    const updates = a.updatesOf(sessionId);
    expect(updates).toContainEqual({
      sessionUpdate: "user_message",
      messageId: answer.messageId,
      content: [{ type: "text", text: "say hello" }],
    });
    const states = ofKind(updates, "state_update").map((s) => s.state);
    expect(states).toEqual(["running", "idle"]);
    const chunks = ofKind(updates, "agent_message_chunk");
    expect(chunks.map((c) => (c.content.type === "text" ? c.content.text : "")).join("")).toBe("hello from codex");
    expect(new Set(chunks.map((c) => c.messageId)).size).toBe(1);
    // Nothing of v1's own shapes reaches a v2 client.
    const kinds = new Set(updates.map((u) => u.sessionUpdate));
    for (const v1Only of ["tool_call", "current_mode_update", "plan"]) expect(kinds).not.toContain(v1Only);
  });

  it("a prompt queued behind a running one and refused (audio) is told to the client as an error notice, and the session ends idle after the first", async () => {
    const { a, sessionId } = await v2Session([{ ...textResponse("slow answer"), delayMs: 800 }]);
    const first = a.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "one" }],
    } as v2.PromptRequest);
    await first;
    const second = await a.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }],
    } as v2.PromptRequest);
    expect(second).toHaveProperty("messageId");
    await waitFor(
      () => ofKind(a.updatesOf(sessionId), "state_update").some((s) => s.state === "idle"),
      "the session idle again",
      15_000,
    );
    const notices = ofKind(a.updatesOf(sessionId), "notice").filter((n) => n.severity === "error");
    expect(notices).toEqual([
      expect.objectContaining({
        severity: "error",
        description: expect.stringContaining("Audio prompts are not supported"),
      }),
    ]);
    expect(ofKind(a.updatesOf(sessionId), "state_update").at(-1)).toMatchObject({
      state: "idle",
      stopReason: "end_turn",
    });
  });

  it("an approved command runs as an agent-owned terminal; a refused one does not run; the permission's subject is the tool call", async () => {
    const answers = new Map([
      ["c1", "allow_once"],
      ["c2", "reject"],
    ]);
    const { a, sessionId } = await v2Session(
      [{ items: [escalated("echo yes > out.txt", "c1")] }, { items: [escalated("echo no > no.txt", "c2")] }, done],
      (r) => {
        return answers.get(subjectCall(r)?.toolCallId ?? "") ?? "cancel";
      },
    );
    const { idle } = await a.turn(sessionId, "write both");
    expect(idle).toMatchObject({ state: "idle", stopReason: "end_turn" });
    expect(a.asked.map((r) => r.subject)).toEqual([
      expect.objectContaining({
        type: "tool_call",
        toolCall: expect.objectContaining({ toolCallId: "c1", kind: "execute" }),
      }),
      expect.objectContaining({ type: "tool_call", toolCall: expect.objectContaining({ toolCallId: "c2" }) }),
    ]);
    expect(await readFile(path.join(a.workspace, "out.txt"), "utf8")).toBe("yes\n");
    expect(existsSync(path.join(a.workspace, "no.txt"))).toBe(false);
    const updates = a.updatesOf(sessionId);
    // While the client was asked, the session required its action.
    expect(ofKind(updates, "state_update").map((s) => s.state)).toEqual([
      "running",
      "requires_action",
      "running",
      "requires_action",
      "running",
      "idle",
    ]);
    const terminal = ofKind(updates, "terminal_update").filter((t) => t.terminalId === "c1");
    expect(terminal[0]).toMatchObject({ terminalId: "c1", command: "echo yes > out.txt", cwd: a.workspace });
    expect(terminal.at(-1)).toMatchObject({ exitStatus: { exitCode: 0 } });
    expect(
      ofKind(updates, "tool_call_update")
        .filter((t) => t.toolCallId === "c1")
        .at(-1),
    ).toMatchObject({ status: "completed" });
    expect(
      ofKind(updates, "tool_call_update")
        .filter((t) => t.toolCallId === "c2")
        .at(-1),
    ).toMatchObject({ status: "failed" });
  });

  it("Review Edits: a patch is asked with its file states and git patch before it is written; refused, nothing is written; allowed, it is", async () => {
    const add = (file: string, id: string) => ({
      items: [applyPatch(`*** Begin Patch\n*** Add File: ${file}\n+hello\n*** End Patch`, { callId: id })],
    });
    const { a, sessionId } = await v2Session([add("refused.txt", "p1"), done, add("allowed.txt", "p2"), done], (r) => {
      return subjectCall(r)?.toolCallId === "p2"
        ? (r.options.find((o) => o.kind === "allow_once")?.optionId ?? "cancel")
        : (r.options.find((o) => o.kind === "reject_once")?.optionId ?? "cancel");
    });
    await a.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      type: "id",
      value: "review-edits",
    });
    await a.turn(sessionId, "add a file");
    const refusedPath = path.join(a.workspace, "refused.txt");
    expect(existsSync(refusedPath)).toBe(false);
    expect(a.asked[0]?.subject?.type).toBe("tool_call");
    const diff = subjectCall(a.asked[0]!)?.content?.find(
      (c): c is Extract<v2.ToolCallContent, { type: "diff" }> => c.type === "diff",
    );
    expect(diff).toMatchObject({
      type: "diff",
      changes: [{ operation: "add", path: refusedPath }],
      patch: { format: "git_patch" },
    });
    const patch = diff?.patch;
    expect(patch?.text).toContain("new file mode 100644");
    expect(patch?.text).toContain("+hello");

    await a.turn(sessionId, "add another");
    expect(await readFile(path.join(a.workspace, "allowed.txt"), "utf8")).toBe("hello\n");
    // The card the client keeps shows the same file state.
    const card = ofKind(a.updatesOf(sessionId), "tool_call_update").find(
      (t) => t.toolCallId === "p2" && t.content?.some((c) => c.type === "diff"),
    );
    expect(card?.content?.find((c) => c.type === "diff")).toMatchObject({
      changes: [{ operation: "add", path: path.join(a.workspace, "allowed.txt") }],
    });
  });

  it("tool_call/cancel withdraws a command waiting on its permission: the client's request is cancelled, the command does not run, the turn goes on", async () => {
    const { a, sessionId } = await v2Session(
      [{ items: [escalated("echo late > late.txt", "c5")] }, done],
      () => new Promise<string>(() => undefined),
    );
    const idle = a.turn(sessionId, "write late");
    await waitFor(() => a.asked.length === 1, "the permission request");
    expect(
      ofKind(a.updatesOf(sessionId), "tool_call_update")
        .filter((u) => u.toolCallId === "c5")
        .at(-1),
    ).toMatchObject({ capabilities: { cancel: {} } });
    const cancelSeen = a.waitForLine((m) => m.method === "$/cancel_request");
    expect(await a.agent.request("tool_call/cancel", { sessionId, toolCallId: "c5" })).toEqual({});
    await cancelSeen;
    expect((await idle).idle).toMatchObject({ state: "idle" });
    expect(existsSync(path.join(a.workspace, "late.txt"))).toBe(false);
    expect(
      ofKind(a.updatesOf(sessionId), "tool_call_update")
        .filter((u) => u.toolCallId === "c5")
        .at(-1),
    ).toMatchObject({ status: "failed" });
    // Nothing waits now: cancelling again is refused, as is an unknown tool call.
    await expect(a.agent.request("tool_call/cancel", { sessionId, toolCallId: "c5" })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("resume with replay sends the history as messages with ids, then the session's state, then the answer; without replay, only the state", async () => {
    const { a, sessionId } = await v2Session([textResponse("first answer")]);
    await a.turn(sessionId, "first question");
    await a.agent.request("session/close", { sessionId });
    const before = a.updatesOf(sessionId).length;
    const linesBefore = a.stdoutLines.length;
    await a.agent.request("session/resume", { sessionId, cwd: a.workspace, replayFrom: { type: "start" } });
    // On the wire: the replay, then the state, then the answer (the client SDK may hand over the updates after the answer).
    const wire = a.stdoutLines
      .slice(linesBefore)
      .map((l) => JSON.parse(l) as { id?: number; params?: { update?: v2.SessionUpdate } });
    const answerAt = wire.findIndex((m) => m.id !== undefined);
    const stateAt = wire.findIndex((m) => m.params?.update?.sessionUpdate === "state_update");
    expect(wire[stateAt]?.params?.update).toMatchObject({ state: "idle" });
    expect(stateAt).toBeGreaterThan(
      wire.findLastIndex((m) => m.params?.update?.sessionUpdate === "agent_message_chunk"),
    );
    expect(stateAt).toBeLessThan(answerAt);
    await waitFor(
      () =>
        a
          .updatesOf(sessionId)
          .slice(before)
          .some((u) => u.sessionUpdate === "state_update"),
      "the resumed session's state",
    );
    const replayed = a.updatesOf(sessionId).slice(before);
    const user = ofKind(replayed, "user_message");
    expect(user).toHaveLength(1);
    const userChunks = ofKind(replayed, "user_message_chunk");
    expect(userChunks[0]).toMatchObject({
      messageId: user[0]!.messageId,
      content: { type: "text", text: "first question" },
    });
    expect(
      ofKind(replayed, "agent_message_chunk")
        .map((c) => (c.content.type === "text" ? c.content.text : ""))
        .join(""),
    ).toBe("first answer");

    await a.agent.request("session/close", { sessionId });
    const mark = a.updatesOf(sessionId).length;
    await a.agent.request("session/resume", { sessionId, cwd: a.workspace });
    await waitFor(
      () =>
        a
          .updatesOf(sessionId)
          .slice(mark)
          .some((u) => u.sessionUpdate === "state_update"),
      "the state after a plain resume",
    );
    const plain = a.updatesOf(sessionId).slice(mark);
    expect(plain.filter((u) => u.sessionUpdate.includes("message"))).toEqual([]);
    expect(plain).toContainEqual(expect.objectContaining({ sessionUpdate: "state_update", state: "idle" }));
    await expect(
      a.agent.request("session/resume", { sessionId, cwd: a.workspace, replayFrom: { type: "_from_somewhere" } }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("sessions: listed, titled, forked into a new session, deleted (the fork's source too: the fork keeps its history); a prompt to an unknown session is refused", async () => {
    const { a, sessionId } = await v2Session([textResponse("one"), textResponse("from the fork")]);
    await a.turn(sessionId, "first");
    const listed = (await a.agent.request("session/list", { cwd: a.workspace })).sessions.map((s) => s.sessionId);
    expect(listed).toContain(sessionId);
    await a.agent.request("session/set_title", { sessionId, title: "Renamed" });
    await waitFor(
      () => a.updatesOf(sessionId).some((u) => u.sessionUpdate === "session_info_update" && u.title === "Renamed"),
      "the new title",
    );
    const fork = await a.agent.request("session/fork", { sessionId, cwd: a.workspace });
    expect(fork.sessionId).not.toBe(sessionId);
    expect(fork.configOptions?.map((o) => o.configId)).toContain("mode");
    const { idle } = await a.turn(fork.sessionId, "go on");
    expect(idle).toMatchObject({ state: "idle", stopReason: "end_turn" });
    // The fork's history reads its source's, which Codex will not delete: the user's delete succeeds all the same.
    expect(await a.agent.request("session/delete", { sessionId })).toEqual({});
    const listedNow = async () =>
      (await a.agent.request("session/list", { cwd: a.workspace })).sessions.map((s) => s.sessionId);
    expect(await listedNow()).toEqual([fork.sessionId]);
    await expect(
      a.agent.request("session/resume", { sessionId, cwd: a.workspace, replayFrom: { type: "start" } }),
    ).rejects.toMatchObject({ code: -32002 });
    // The fork replays its whole history, its source's first turn included.
    await a.agent.request("session/close", { sessionId: fork.sessionId });
    const before = a.updatesOf(fork.sessionId).length;
    await a.agent.request("session/resume", {
      sessionId: fork.sessionId,
      cwd: a.workspace,
      replayFrom: { type: "start" },
    });
    await waitFor(
      () =>
        a
          .updatesOf(fork.sessionId)
          .slice(before)
          .some((u) => u.sessionUpdate === "state_update"),
      "the resumed fork's state",
    );
    const replayed = a.updatesOf(fork.sessionId).slice(before);
    expect(
      ofKind(replayed, "user_message_chunk").map((c) => (c.content.type === "text" ? c.content.text : "")),
    ).toEqual(["first", "go on"]);
    expect(
      ofKind(replayed, "agent_message_chunk")
        .map((c) => (c.content.type === "text" ? c.content.text : ""))
        .join(""),
    ).toBe("onefrom the fork");
    await a.agent.request("session/delete", { sessionId: fork.sessionId });
    expect(await listedNow()).toEqual([]);
    await expect(
      a.agent.request("session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it("signs in with auth/login and out with auth/logout", async () => {
    adapter = await startV2Adapter({ env: { CODEX_ACP_CODEX_ARGS: '-c model_provider="openai"' } });
    const init = await adapter.initialize();
    expect(init.authMethods?.map((m) => m.methodId)).toContain("openai-api-key");
    await expect(adapter.newSession()).rejects.toMatchObject({ code: -32000 });
    expect(
      await adapter.agent.request("auth/login", {
        methodId: "openai-api-key",
        _meta: { "api-key": { apiKey: "sk-test-v2" } },
      }),
    ).toEqual({});
    await adapter.newSession();
    expect(await adapter.agent.request("auth/logout", {})).toEqual({});
    await expect(adapter.newSession()).rejects.toMatchObject({ code: -32000 });
    expect(adapter.stderr()).not.toContain("sk-test-v2");
  });

  it("a v2 initialize after a notification is still served v2 (the protocol is the initialize's, not the first message's)", async () => {
    const agent = await spawnAgent({});
    try {
      void agent.readable.pipeTo(new WritableStream());
      const writer = agent.writable.getWriter();
      const line = (o: unknown) => writer.write(new TextEncoder().encode(`${JSON.stringify(o)}\n`));
      const answer = agent.waitForLine((m) => m.id === 1);
      await line({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 99 } });
      await line({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: 2, info: { name: "t", version: "1" }, capabilities: {} },
      });
      expect(((await answer) as { result?: { protocolVersion?: number } }).result?.protocolVersion).toBe(2);
    } finally {
      await agent.stop();
    }
  });

  it("a v1 client of the same build is served v1 as before", async () => {
    v1Adapter = await startAdapter({
      responses: [{ items: [escalated("echo v1 > v1.txt", "c9")] }, done],
      setupClient: (app) =>
        app.onRequest(acp.methods.client.session.requestPermission, () => ({
          outcome: { outcome: "selected", optionId: "allow_once" },
        })),
    });
    const init = await v1Adapter.initialize();
    expect(init.protocolVersion).toBe(1);
    const { sessionId, modes } = await v1Adapter.newSession();
    expect(modes?.currentModeId).toBe("auto");
    expect((await v1Adapter.prompt(sessionId, "go")).stopReason).toBe("end_turn");
    const kinds = new Set(v1Adapter.updatesOf(sessionId).map((u) => u.sessionUpdate));
    expect(kinds).toContain("tool_call");
    expect(kinds).not.toContain("state_update");
  });
});
