// Issue 12, subagents: a turn that spawns a Codex subagent (the multi-agent collab tools) shows
// it as a tool call of its own that updates as the subagent works, announces it with the
// unstable subagent_update to clients that declare subagents, and asks the user for the
// subagent's approvals instead of refusing them. Real codex, fake model.
//
// The parent's next model request and the subagent's first one race for the fake model's next
// scripted response, so each pair of responses below is the same for both.
import { afterEach, describe, expect, it } from "vitest";
import { answerPermissions, rawUpdatesOf, startAdapter, type Adapter } from "../support/adapter.js";
import { httpError, toolCall, type ScriptedResponse } from "../support/fake-model.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const spawn: ScriptedResponse = {
  items: [
    {
      type: "function_call",
      namespace: "multi_agent_v1",
      name: "spawn_agent",
      arguments: { message: "count the files\nin the workspace" },
      callId: "spawn1",
    },
  ],
};
const say = (text: string): ScriptedResponse => ({ items: [{ type: "message", text }] });

type Update = Record<string, unknown>;

/** The subagent's work goes on after the parent's turn ends: wait until its card is final. */
async function waitForCard(a: Adapter, sessionId: string, toolCallId: string): Promise<Update[]> {
  const card = (): Update[] => rawUpdatesOf(a, sessionId).filter((u) => u.toolCallId === toolCallId);
  await waitFor(
    () => card().some((u) => u.status === "completed" || u.status === "failed"),
    `the subagent card ${toolCallId} to end`,
  );
  return card();
}

describe("subagents", () => {
  it("a spawned subagent is a tool call that shows its work and ends with its last message", async () => {
    adapter = await startAdapter({ responses: [spawn, say("There are 3 files."), say("There are 3 files.")] });
    await adapter.initialize({ session: { notices: {} }, subagents: {} } as Parameters<Adapter["initialize"]>[0]);
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "use a subagent")).stopReason).toBe("end_turn");

    const updates = rawUpdatesOf(adapter, sessionId);
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "spawn1",
        title: "Start a subagent",
        kind: "think",
      }),
    );
    const opened = updates.find((u) => u.sessionUpdate === "tool_call" && String(u.toolCallId).startsWith("subagent-"));
    expect(opened).toMatchObject({
      title: "Subagent: count the files",
      kind: "think",
      status: "in_progress",
      rawInput: { prompt: "count the files\nin the workspace" },
    });
    const childId = String(opened!.toolCallId).slice("subagent-".length);

    const card = await waitForCard(adapter, sessionId, String(opened!.toolCallId));
    const last = card.at(-1)!;
    expect(last).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
    expect(JSON.stringify(last.content)).toContain("There are 3 files.");

    // Announced to a client that declares subagents: running, then idle.
    const announced = rawUpdatesOf(adapter, sessionId).filter((u) => u.sessionUpdate === "subagent_update");
    expect(announced[0]).toEqual({
      sessionUpdate: "subagent_update",
      sessionId: childId,
      title: "Subagent: count the files",
      state: { state: "running" },
    });
    expect(announced.at(-1)).toMatchObject({ sessionId: childId, state: { state: "idle", stopReason: "end_turn" } });
    // ...and its own conversation under its own session id: what it was asked, what it said.
    const own = rawUpdatesOf(adapter, childId);
    const said = (kind: string) =>
      own
        .filter((u) => u.sessionUpdate === kind)
        .map((u) => (u.content as { text?: string }).text ?? "")
        .join("");
    expect(said("user_message_chunk")).toContain("count the files");
    expect(said("agent_message_chunk")).toBe("There are 3 files.");
  });

  it("a subagent whose turn fails is announced idle with an error stop, and its card fails", async () => {
    const refused = httpError(400, "the model refused the subagent");
    adapter = await startAdapter({ responses: [spawn, refused, refused, say("Done.")] });
    await adapter.initialize({ subagents: {} } as Parameters<Adapter["initialize"]>[0]);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "use a subagent").catch(() => undefined); // the parent's own request may get the error too
    const opened = rawUpdatesOf(adapter, sessionId).find(
      (u) => u.sessionUpdate === "tool_call" && String(u.toolCallId).startsWith("subagent-"),
    );
    const card = await waitForCard(adapter, sessionId, String(opened!.toolCallId));
    expect(card.at(-1)).toMatchObject({ status: "failed" });
    const announced = rawUpdatesOf(adapter, sessionId).filter((u) => u.sessionUpdate === "subagent_update");
    expect(announced.at(-1)).toMatchObject({
      state: {
        state: "idle",
        stopReason: "error",
        error: { code: -32603, message: expect.stringContaining("refused") },
      },
    });
  });

  it("without the subagents capability there is no subagent_update, and the card still works", async () => {
    adapter = await startAdapter({ responses: [spawn, say("Done."), say("Done.")] });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "use a subagent");
    const opened = rawUpdatesOf(adapter, sessionId).find((u) => String(u.toolCallId ?? "").startsWith("subagent-"));
    await waitForCard(adapter, sessionId, String(opened!.toolCallId));
    expect(rawUpdatesOf(adapter, sessionId).some((u) => u.sessionUpdate === "subagent_update")).toBe(false);
    // No session id was announced, so no stream goes out under one.
    expect(adapter.stdoutLines.filter((l) => l.includes('"session/update"') && !l.includes(sessionId))).toEqual([]);
  });

  it("the subagent's approvals are asked through the session (not refused as an unknown thread), naming the subagent", async () => {
    const { asked, setupClient } = answerPermissions("reject");
    const escalated: ScriptedResponse = {
      items: [
        toolCall("exec_command", {
          cmd: "echo hi > /var/tmp/never-written",
          sandbox_permissions: "require_escalated",
          justification: "needs it",
        }),
      ],
    };
    adapter = await startAdapter({ responses: [spawn, escalated, escalated, say("Done."), say("Done.")], setupClient });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "use a subagent");
    const opened = rawUpdatesOf(adapter, sessionId).find((u) => String(u.toolCallId ?? "").startsWith("subagent-"));
    await waitForCard(adapter, sessionId, String(opened!.toolCallId));
    // One from the parent and one from the subagent, both asked; none refused unseen.
    expect(asked).toHaveLength(2);
    expect(adapter.stderr()).not.toContain("codex request for no known thread");
    // The client never saw the subagent's command as a tool call: its request says whose it is.
    const titles = asked.map((a) => a.toolCall.title).sort();
    expect(titles).toEqual([
      "Subagent: count the files · echo hi > /var/tmp/never-written",
      "echo hi > /var/tmp/never-written",
    ]);
    // The card the client made from that request ends (rejected: failed) instead of spinning.
    const childCall = asked.find((a) => a.toolCall.title?.startsWith("Subagent:"))!.toolCall.toolCallId;
    expect(rawUpdatesOf(adapter, sessionId).filter((u) => u.toolCallId === childCall)).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call_update", status: "failed" }),
    );
  });
});
