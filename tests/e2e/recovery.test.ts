// Issue 5: a Codex crash loses nothing. The codex child is killed with SIGKILL during or
// between turns; the same ACP session then goes on in a new child with its whole history.
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse, toolCall } from "../../tools/fake-model/index.js";
import { codexChildPid, killCodex, messageText, startAdapter, type Adapter } from "../support/adapter.js";

let adapter: Adapter | undefined;
/** A restarted agent's predecessor: its fake model, Codex home and workspace are the new one's too, so it closes last. */
let predecessor: Adapter | undefined;

afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  await predecessor?.close();
  predecessor = undefined;
});

/** The kinds of update that carry the conversation (not titles, modes, commands, usage). */
const HISTORY = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
]);

/** The history a load replayed: each message's kind and text, from the `seen`th update on. */
const replayedSince = (a: Adapter, sessionId: string, seen: number): Array<[string, string]> =>
  a
    .updatesOf(sessionId)
    .slice(seen)
    .filter((u) => HISTORY.has(u.sessionUpdate))
    .map((u) => [
      u.sessionUpdate,
      "content" in u && !Array.isArray(u.content) && u.content?.type === "text" ? u.content.text : "",
    ]);

const inputOf = (a: Adapter, index: number) => JSON.stringify(a.fake.requests[index]!.body.input);

describe("recovery after the codex child dies", () => {
  it("killed mid-turn: the prompt fails clearly, the next prompt on the same session resumes the thread with every earlier turn", async () => {
    adapter = await startAdapter({
      responses: [
        { items: [toolCall("exec_command", { cmd: "echo before-the-crash" }, { callId: "call_pre" })] },
        textResponse("first turn done"),
        {
          items: [{ type: "message", text: "this answer is cut short by the crash", deltas: 6 }],
          delayMs: 100,
          hang: true,
        },
        textResponse("back after the crash"),
      ],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "first question")).stopReason).toBe("end_turn");

    const pending = adapter.prompt(sessionId, "doomed question");
    await adapter.waitForLine(
      (m) =>
        m.method === "session/update" &&
        (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "agent_message_chunk" &&
        JSON.stringify(m).includes("cut"),
    );
    const oldPid = await killCodex(adapter);
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(err?.code).toBe(-32603);
    expect(err?.message).toMatch(/Codex stopped unexpectedly \(killed by SIGKILL\).*Nothing is lost/);

    const seen = adapter.updatesOf(sessionId).length;
    const before = adapter.fake.requests.length;
    expect((await adapter.prompt(sessionId, "are you still there?")).stopReason).toBe("end_turn");
    expect(messageText(adapter.updatesOf(sessionId).slice(seen))).toBe("back after the crash");
    expect(await codexChildPid(adapter.child.pid!)).not.toBe(oldPid);

    // The model is shown everything: the first turn (with its command and output), the
    // interrupted turn's user message, and the new message.
    const input = inputOf(adapter, before);
    for (const text of [
      "first question",
      "call_pre",
      "before-the-crash",
      "first turn done",
      "doomed question",
      "are you still there?",
    ]) {
      expect(input).toContain(text);
    }
    // Order is kept.
    expect(input.indexOf("first question")).toBeLessThan(input.indexOf("doomed question"));
    expect(input.indexOf("doomed question")).toBeLessThan(input.indexOf("are you still there?"));
  });

  it("killed between turns: the next prompt resumes the thread without an error", async () => {
    adapter = await startAdapter({ responses: [textResponse("noted: 42"), textResponse("it was 42")] });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "remember 42");
    const oldPid = await killCodex(adapter); // (returns once the adapter has noticed the exit)
    expect((await adapter.prompt(sessionId, "what number?")).stopReason).toBe("end_turn");
    expect(await codexChildPid(adapter.child.pid!)).not.toBe(oldPid);
    const input = inputOf(adapter, 1);
    expect(input).toContain("remember 42");
    expect(input).toContain("noted: 42");
    expect(input).toContain("what number?");
  });

  it("after a crash, session/load replays what Codex persisted, the interrupted turn's message included", async () => {
    adapter = await startAdapter({
      responses: [
        textResponse("kept answer"),
        { items: [{ type: "message", text: "lost in the crash", deltas: 4 }], delayMs: 100, hang: true },
      ],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "kept question");
    const pending = adapter.prompt(sessionId, "interrupted question").catch((e: unknown) => e);
    await adapter.waitForLine((m) => m.method === "session/update" && JSON.stringify(m).includes("lost"));
    await killCodex(adapter);
    await pending;

    const seen = adapter.updatesOf(sessionId).length;
    await adapter.agent.request(acp.methods.agent.session.load, { sessionId, cwd: adapter.workspace, mcpServers: [] });
    const replayed = replayedSince(adapter, sessionId, seen);
    expect(replayed).toEqual([
      ["user_message_chunk", "kept question"],
      ["agent_message_chunk", "kept answer"],
      ["user_message_chunk", "interrupted question"],
    ]);
  });

  it("a session opened but never prompted goes on after codex stops: its first prompt runs, and list and load know it by its id, here and in a later agent", async () => {
    adapter = await startAdapter({
      responses: [textResponse("first answer"), textResponse("second answer"), textResponse("third answer")],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    // Chosen before the crash: the session's settings go on with it.
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "read-only" });
    await killCodex(adapter); // Codex kept nothing of the thread: it was never prompted
    expect((await adapter.prompt(sessionId, "hello after the crash")).stopReason).toBe("end_turn");
    expect(adapter.fake.requests).toHaveLength(1);
    expect(inputOf(adapter, 0)).toContain("hello after the crash");
    expect(messageText(adapter.updatesOf(sessionId))).toBe("first answer");

    const listed = async (a: Adapter) =>
      (await a.agent.request(acp.methods.agent.session.list, {})).sessions.map((s) => s.sessionId);
    expect(await listed(adapter)).toEqual([sessionId]);
    await adapter.agent.request(acp.methods.agent.session.close, { sessionId });
    const seen = adapter.updatesOf(sessionId).length;
    const loaded = await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: adapter.workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("read-only");
    const replayed = replayedSince(adapter, sessionId, seen);
    expect(replayed).toEqual([
      ["user_message_chunk", "hello after the crash"],
      ["agent_message_chunk", "first answer"],
    ]);
    expect((await adapter.prompt(sessionId, "and again")).stopReason).toBe("end_turn");
    expect(inputOf(adapter, 1)).toContain("hello after the crash");

    // Another agent on the same Codex home (the editor restarted) lists and loads it under the same id.
    const first = adapter;
    first.child.kill();
    predecessor = first;
    adapter = await startAdapter({ fake: first.fake, home: first.home, workspace: first.workspace });
    await adapter.initialize();
    expect(await listed(adapter)).toEqual([sessionId]);
    await adapter.agent.request(acp.methods.agent.session.load, { sessionId, cwd: adapter.workspace, mcpServers: [] });
    expect(messageText(adapter.updatesOf(sessionId))).toBe("first answersecond answer");
    expect((await adapter.prompt(sessionId, "third time")).stopReason).toBe("end_turn");
    expect(inputOf(adapter, 2)).toContain("and again");
    expect(await adapter.agent.request(acp.methods.agent.session.delete, { sessionId })).toEqual({});
    expect(await listed(adapter)).toEqual([]);
  });
});
