// Issue 4: Codex's approval requests become session/request_permission on the tool call the
// client already shows; allow / allow-always / reject / cancel reach Codex, and the files on
// disk match the choice. Reject declines one call and the turn goes on.
import { afterEach, describe, expect, it } from "vitest";
import { access, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { applyPatch, toolCall, type ScriptedResponse } from "../support/fake-model.js";
import { waitFor } from "../support/wait-for.js";
import { neverAnswer, type Unanswered } from "../support/unanswered.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

type Answer = string | "never";
type Asked = acp.RequestPermissionRequest;

/** An adapter whose client answers permission requests with the given option ids, in order. */
async function withAnswers(responses: ScriptedResponse[], answers: Answer[]) {
  const asked: Asked[] = [];
  /** Index in the update list at which each request arrived (to prove the tool call came first). */
  const seenAt: number[] = [];
  adapter = await startAdapter({
    responses,
    setupClient: (app) => {
      app.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        asked.push(params);
        seenAt.push(adapter!.updatesOf(params.sessionId).length);
        const answer = answers[asked.length - 1] ?? "never";
        if (answer === "never") return new Promise<acp.RequestPermissionResponse>(() => undefined);
        return { outcome: { outcome: "selected", optionId: answer } };
      });
    },
  });
  await adapter.initialize();
  const { sessionId } = await adapter.newSession();
  return { asked, seenAt, sessionId, adapter };
}

const escalated = (cmd: string, callId: string) =>
  toolCall(
    "exec_command",
    { cmd, sandbox_permissions: "require_escalated", justification: "needs to write" },
    { callId },
  );
const done: ScriptedResponse = { items: [{ type: "message", text: "finished" }] };
const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

// What Codex 0.169 offers for an escalated command (availableDecisions: accept, a prefix rule,
// cancel): no session-wide allow; a plain reject is added so an editor's "no" lets the turn go on.
const COMMAND_OPTIONS = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  {
    optionId: "allow_prefix",
    name: expect.stringMatching(/^Always allow commands starting with `.+` \(saved in Codex's rules\)$/),
    kind: "allow_always",
  },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
  { optionId: "reject_and_stop", name: "No, and tell Codex what to do differently", kind: "reject_once" },
];

describe("command approvals", () => {
  it("allow once: asked on the tool call the client already has, with readable options; the command runs", async () => {
    const { asked, seenAt, sessionId } = await withAnswers(
      [{ items: [escalated("echo yes > out.txt", "c1")] }, done],
      ["allow_once"],
    );
    const result = await adapter!.prompt(sessionId, "write it");
    expect(result.stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual({
      sessionId,
      toolCall: {
        toolCallId: "c1",
        title: "echo yes > out.txt",
        kind: "execute",
        status: "pending",
        rawInput: { command: "echo yes > out.txt", cwd: adapter!.workspace },
        content: [
          {
            type: "content",
            content: { type: "text", text: "Codex asks to run this command: needs to write\n\n$ echo yes > out.txt" },
          },
        ],
      },
      options: COMMAND_OPTIONS,
    });
    // The client had the tool_call before the question.
    const before = adapter!.updatesOf(sessionId).slice(0, seenAt[0]);
    expect(before).toContainEqual(expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "c1" }));
    expect(await readFile(path.join(adapter!.workspace, "out.txt"), "utf8")).toBe("yes\n");
    expect(adapter!.updatesOf(sessionId)).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" }),
    );
  });

  it("a destructive command Codex parses as a search or a read is asked as execute, titled with the literal command", async () => {
    const commands = ["find . -name notes.txt -delete", "cat notes.txt > /dev/null; rm notes.txt"];
    const { asked, sessionId } = await withAnswers(
      [{ items: [escalated(commands[0]!, "d1")] }, { items: [escalated(commands[1]!, "d2")] }, done],
      ["reject", "reject"],
    );
    await writeFile(path.join(adapter!.workspace, "notes.txt"), "keep me\n");
    await adapter!.prompt(sessionId, "clean up");
    expect(asked.map((a) => [a.toolCall.kind, a.toolCall.title])).toEqual(commands.map((c) => ["execute", c]));
    expect(await readFile(path.join(adapter!.workspace, "notes.txt"), "utf8")).toBe("keep me\n");
  });

  it("allow always (Codex's prefix rule): the second identical call is not asked again, both run", async () => {
    const { asked, sessionId } = await withAnswers(
      [
        { items: [escalated("echo again >> log.txt", "a1")] },
        { items: [escalated("echo again >> log.txt", "a2")] },
        done,
      ],
      ["allow_prefix"],
    );
    expect((await adapter!.prompt(sessionId, "twice")).stopReason).toBe("end_turn");
    expect(asked.map((a) => a.toolCall.toolCallId)).toEqual(["a1"]);
    expect(await readFile(path.join(adapter!.workspace, "log.txt"), "utf8")).toBe("again\nagain\n");
  });

  it("reject: that call is declined, Codex tells the model, the turn goes on to end_turn", async () => {
    const { asked, sessionId } = await withAnswers(
      [{ items: [escalated("echo no > out.txt", "r1")] }, done],
      ["reject"],
    );
    const result = await adapter!.prompt(sessionId, "try");
    expect(result.stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(await exists(path.join(adapter!.workspace, "out.txt"))).toBe(false);
    const updates = adapter!.updatesOf(sessionId);
    expect(updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "r1").at(-1)).toMatchObject(
      { status: "failed" },
    );
    // The model's next request carries the tool's (rejected) output, and its answer reached the client.
    expect(adapter!.fake.requests).toHaveLength(2);
    const output = (
      adapter!.fake.requests[1]!.body.input as Array<{ type: string; call_id?: string; output?: unknown }>
    ).find((i) => i.type === "function_call_output" && i.call_id === "r1");
    expect(JSON.stringify(output?.output)).toMatch(/reject|declin|denied/i);
    expect(updates).toContainEqual({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "finished" },
      messageId: expect.any(String),
    });
  });

  it("no, and tell Codex what to do differently: nothing ran and the turn stops for the user's word", async () => {
    const { asked, sessionId } = await withAnswers(
      [{ items: [escalated("echo no > out.txt", "s1")] }, done],
      ["reject_and_stop"],
    );
    expect((await adapter!.prompt(sessionId, "try")).stopReason).toBe("cancelled");
    expect(asked).toHaveLength(1);
    expect(await exists(path.join(adapter!.workspace, "out.txt"))).toBe(false);
    expect(adapter!.fake.requests).toHaveLength(1);
  });

  it("cancel while asking: the pending question is resolved, the prompt returns cancelled, nothing ran", async () => {
    const { asked, sessionId } = await withAnswers(
      [{ items: [escalated("echo late > out.txt", "x1")] }, done, { items: [{ type: "message", text: "next" }] }],
      ["never"],
    );
    const pending = adapter!.prompt(sessionId, "try");
    await waitFor(() => asked.length === 1, "the permission request");
    await adapter!.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await pending).stopReason).toBe("cancelled");
    expect(await exists(path.join(adapter!.workspace, "out.txt"))).toBe(false);
    // The session still works.
    expect((await adapter!.prompt(sessionId, "again")).stopReason).toBe("end_turn");
  });

  it("a client that never answers does not block another session", async () => {
    const { asked, sessionId } = await withAnswers(
      [
        { items: [escalated("echo hang > out.txt", "h1")] },
        { items: [{ type: "message", text: "other session" }] },
        done,
      ],
      ["never"],
    );
    const stuck = adapter!.prompt(sessionId, "hang");
    await waitFor(() => asked.length === 1, "the permission request");
    const other = await adapter!.newSession();
    expect((await adapter!.prompt(other.sessionId, "hello")).stopReason).toBe("end_turn");
    await adapter!.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await stuck).stopReason).toBe("cancelled");
  });
});

describe("patch approvals (read-only mode: every patch asks)", () => {
  const patch = (callId: string, to: string) =>
    applyPatch(`*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+${to}\n*** End Patch`, { callId });

  async function readOnlySession(responses: ScriptedResponse[], answers: Answer[]) {
    const ctx = await withAnswers(responses, answers);
    await writeFile(path.join(adapter!.workspace, "a.txt"), "old\n");
    await adapter!.agent.request(acp.methods.agent.session.setMode, { sessionId: ctx.sessionId, modeId: "read-only" });
    return ctx;
  }

  it("allow once: the diff is on the tool call being asked about; the file changes", async () => {
    const { asked, sessionId } = await readOnlySession([{ items: [patch("p1", "new")] }, done], ["allow_once"]);
    expect((await adapter!.prompt(sessionId, "edit")).stopReason).toBe("end_turn");
    const file = path.join(adapter!.workspace, "a.txt");
    expect(asked).toEqual([
      {
        sessionId,
        toolCall: {
          toolCallId: "p1",
          title: `Edit ${file}`,
          kind: "edit",
          status: "pending",
          locations: [{ path: file }],
        },
        options: [
          { optionId: "allow_once", name: "Allow this change", kind: "allow_once" },
          {
            optionId: "allow_session",
            name: "Always allow changes to this file in this session",
            kind: "allow_always",
          },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
          { optionId: "reject_and_stop", name: "No, and tell Codex what to do differently", kind: "reject_once" },
        ],
      },
    ]);
    expect(adapter!.updatesOf(sessionId)).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "p1",
        content: [{ type: "diff", path: file, oldText: "old\n", newText: "new\n" }],
      }),
    );
    expect(await readFile(file, "utf8")).toBe("new\n");
  });

  it("allow always: a second patch to the same file is not asked", async () => {
    const { asked, sessionId } = await readOnlySession(
      [
        { items: [patch("p1", "mid")] },
        {
          items: [
            applyPatch("*** Begin Patch\n*** Update File: a.txt\n@@\n-mid\n+end\n*** End Patch", { callId: "p2" }),
          ],
        },
        done,
      ],
      ["allow_session"],
    );
    expect((await adapter!.prompt(sessionId, "edit twice")).stopReason).toBe("end_turn");
    expect(asked.map((a) => a.toolCall.toolCallId)).toEqual(["p1"]);
    expect(await readFile(path.join(adapter!.workspace, "a.txt"), "utf8")).toBe("end\n");
  });

  it("reject: the file is untouched, the tool call fails, the turn ends normally", async () => {
    const { sessionId } = await readOnlySession([{ items: [patch("p1", "new")] }, done], ["reject"]);
    expect((await adapter!.prompt(sessionId, "edit")).stopReason).toBe("end_turn");
    expect(await readFile(path.join(adapter!.workspace, "a.txt"), "utf8")).toBe("old\n");
    expect(
      adapter!
        .updatesOf(sessionId)
        .filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "p1")
        .at(-1),
    ).toMatchObject({
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Not applied: the change was rejected." } }],
    });
  });

  it("cancel while asking: the prompt returns cancelled and the file is untouched", async () => {
    const { asked, sessionId } = await readOnlySession([{ items: [patch("p1", "new")] }, done], ["never"]);
    const pending = adapter!.prompt(sessionId, "edit");
    await waitFor(() => asked.length === 1, "the permission request");
    await adapter!.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await pending).stopReason).toBe("cancelled");
    expect(await readFile(path.join(adapter!.workspace, "a.txt"), "utf8")).toBe("old\n");
  });
});

describe("permission requests (Codex's request_permissions tool)", () => {
  const requestNetwork = (callId: string): ScriptedResponse => ({
    items: [
      toolCall(
        "request_permissions",
        { permissions: { network: { enabled: true } }, reason: "to download the schema" },
        { callId },
      ),
    ],
  });
  const grantOf = (callId: string) => {
    const input = adapter!.fake.requests[1]!.body.input as Array<{ type: string; call_id?: string; output?: unknown }>;
    return JSON.parse(
      String(input.find((i) => i.type === "function_call_output" && i.call_id === callId)?.output),
    ) as unknown;
  };
  const start = async (answer: Answer) => {
    const asked: Asked[] = [];
    adapter = await startAdapter({
      env: { CODEX_ACP_CODEX_ARGS: "--enable request_permissions_tool" },
      responses: [requestNetwork("perm1"), done],
      setupClient: (app) =>
        app.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
          asked.push(params);
          return answer === "never"
            ? new Promise<acp.RequestPermissionResponse>(() => undefined)
            : { outcome: { outcome: "selected", optionId: answer } };
        }),
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    return { asked, sessionId };
  };

  it("asks with this turn / this session / reject, naming what Codex wants; the grant reaches Codex", async () => {
    const { asked, sessionId } = await start("allow_session");
    expect((await adapter!.prompt(sessionId, "go")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.toolCall).toMatchObject({
      toolCallId: "perm1",
      title: "Codex asks for more permissions",
      status: "pending",
    });
    expect(JSON.stringify(asked[0]!.toolCall.content)).toContain(
      "Codex asks for (to download the schema):\\n- network access",
    );
    expect(asked[0]!.options.map((o) => [o.optionId, o.kind])).toEqual([
      ["allow_once", "allow_once"],
      ["allow_session", "allow_always"],
      ["reject", "reject_once"],
    ]);
    expect(grantOf("perm1")).toMatchObject({ permissions: { network: { enabled: true } }, scope: "session" });
  });

  it("reject grants nothing and the turn goes on", async () => {
    const { sessionId } = await start("reject");
    expect((await adapter!.prompt(sessionId, "go")).stopReason).toBe("end_turn");
    expect(grantOf("perm1")).toMatchObject({ permissions: { network: null }, scope: "turn" });
  });

  it("cancel while asking ends the prompt cancelled", async () => {
    const { asked, sessionId } = await start("never");
    const pending = adapter!.prompt(sessionId, "go");
    await waitFor(() => asked.length === 1, "the permission request");
    await adapter!.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await pending).stopReason).toBe("cancelled");
  });
});

describe("a question Codex settles elsewhere", () => {
  it("session/load of a session waiting on an approval withdraws every permission request it raised, the one Codex asks again on the loaded thread included", async () => {
    const asks: Array<Unanswered<{ toolCallId: string }>> = [];
    adapter = await startAdapter({
      // The user never answers.
      setupClient: (app) =>
        app.onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) =>
          neverAnswer(asks, { toolCallId: params.toolCall.toolCallId }, signal),
        ),
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    adapter.fake.enqueue({ items: [{ type: "message", text: "first" }] });
    await adapter.prompt(sessionId, "a first turn, so the thread is stored");
    adapter.fake.enqueue(
      { items: [escalated("echo yes > out.txt", "c1")] },
      { items: [{ type: "message", text: "after" }] },
      { items: [{ type: "message", text: "after" }] },
    );
    const pending = adapter.prompt(sessionId, "write it");
    await waitFor(() => asks.length === 1, "the permission request");
    await adapter.agent.request(acp.methods.agent.session.load, { sessionId, cwd: adapter.workspace, mcpServers: [] });
    expect((await pending).stopReason).toBe("cancelled");
    // Codex asks again on the loaded thread (the client may or may not see it: it can be settled
    // first), then learns the question was answered (the old session's cancel). Once the loaded
    // session's next turn is over, Codex is done with the old one: nothing may stay open.
    expect((await adapter.prompt(sessionId, "and now?")).stopReason).toBe("end_turn");
    await waitFor(
      () => asks.every((a) => a.withdrawn),
      () => `every permission request withdrawn: ${JSON.stringify(asks)}`,
      10_000,
    );
    await expect(access(path.join(adapter.workspace, "out.txt"))).rejects.toThrow();
  });
});
