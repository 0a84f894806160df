// Issue 50: `/goal` as the Codex CLI and the official adapter offer it (Codex's thread/goal/*).
// `/goal <objective>` sets the goal and Codex works toward it by itself: it starts a turn, then
// another after each, until the goal is complete, paused or cleared. The command's prompt is the
// first of those turns; the ones after it stream outside any prompt. `pause`, `resume`, `clear`;
// alone, `/goal` shows the goal and its state. Codex's own changes (the model's update_goal) are
// told to the client as notices. v1 and v2.
import { afterEach, describe, expect, it } from "vitest";
import type * as acp from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { textResponse, toolCallResponse, type ScriptedResponse } from "../../tools/fake-model/index.js";
import { messageText, startAdapter, type Adapter } from "../support/adapter.js";
import { startV2Adapter, type V2Adapter } from "../support/adapter-v2.js";
import { v2Violations } from "../support/v2-schema.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
let v2Adapter: V2Adapter | undefined;
afterEach(async () => {
  const violations = v2Adapter ? await v2Violations(v2Adapter.stdoutLines) : [];
  await adapter?.close();
  await v2Adapter?.close();
  adapter = v2Adapter = undefined;
  expect(violations).toEqual([]);
});

/** The model completing the goal (its update_goal call), then saying so: a turn of its own. */
const completes = (callId: string, text: string): ScriptedResponse[] => [
  toolCallResponse("update_goal", { status: "complete" }, { callId }),
  textResponse(text),
];

async function start(responses: ScriptedResponse[]): Promise<string> {
  adapter = await startAdapter({ responses });
  await adapter.initialize();
  const { sessionId } = await adapter.newSession();
  return sessionId;
}

/** What the model was sent in its n-th request (0-based). */
const requestInput = (n: number): string => JSON.stringify(adapter!.fake.requests[n]!.body.input);

/** What Codex answered the model's call `callId` with, as the model got it in its n-th request. */
function callOutput(n: number, callId: string): unknown {
  const input = adapter!.fake.requests[n]!.body.input as Array<{ type?: string; call_id?: string; output?: string }>;
  const output = input.find((item) => item.type === "function_call_output" && item.call_id === callId)?.output;
  return output === undefined ? undefined : JSON.parse(output);
}

const notices = (updates: acp.SessionUpdate[]) => updates.filter((u) => u.sessionUpdate === "notice");

describe("/goal (v1)", () => {
  it("`/goal <objective>` sets the goal and Codex starts on it: the model is given the objective, completes the goal with update_goal, and the client is told; `/goal` shows it", async () => {
    const sessionId = await start([textResponse("Working on it."), ...completes("g1", "All tests pass.")]);
    expect((await adapter!.prompt(sessionId, "/goal Make the tests pass")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain("Goal set: Make the tests pass");
    // Codex started the goal's turn by itself (no prompt of ours): its first request holds the objective.
    await waitFor(() => messageText(adapter!.updatesOf(sessionId)).includes("Working on it."), "the goal's first turn");
    expect(requestInput(0)).toContain("Make the tests pass");
    expect(requestInput(0)).not.toContain("/goal");
    // Then a turn of its own, outside any prompt: the model calls update_goal, Codex answers it.
    await waitFor(
      () => notices(adapter!.updatesOf(sessionId)).some((n) => n.title === "Goal complete"),
      "the notice that the goal is complete",
    );
    expect(notices(adapter!.updatesOf(sessionId))).toContainEqual({
      sessionUpdate: "notice",
      severity: "info",
      title: "Goal complete",
      description: "Make the tests pass",
    });
    await waitFor(
      () => messageText(adapter!.updatesOf(sessionId)).includes("All tests pass."),
      "the model's last words",
    );
    expect(callOutput(2, "g1")).toMatchObject({ goal: { objective: "Make the tests pass", status: "complete" } });

    expect((await adapter!.prompt(sessionId, "/goal")).stopReason).toBe("end_turn");
    const shown = messageText(adapter!.updatesOf(sessionId)).split("All tests pass.").at(-1)!;
    expect(shown).toContain("**Goal** (complete)");
    expect(shown).toContain("Make the tests pass");
    expect(shown).toMatch(/\d+ tokens/);
  });

  it("`/goal pause` stops Codex after the turn it is in, `/goal resume` starts it again, `/goal clear` ends the goal; each answers with the goal's state", async () => {
    const sessionId = await start([
      textResponse("Step one."),
      { ...textResponse("Step two.", { deltas: 4 }), delayMs: 500 },
      ...completes("g2", "Released."),
    ]);
    expect((await adapter!.prompt(sessionId, "/goal Ship the release")).stopReason).toBe("end_turn");
    // Codex goes on by itself: its second turn is streaming (slowly) when the goal is paused.
    await adapter!.fake.waitForRequests(2);
    expect((await adapter!.prompt(sessionId, "/goal pause")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain("Goal paused: Ship the release");
    expect((await adapter!.prompt(sessionId, "/goal")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain("**Goal** (paused)");
    // The turn it was in ends; no other starts while the goal is paused.
    await waitFor(() => messageText(adapter!.updatesOf(sessionId)).includes("Step two."), "the second turn's answer");
    expect(adapter!.fake.requests).toHaveLength(2);

    expect((await adapter!.prompt(sessionId, "/goal resume")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain("Goal resumed: Ship the release");
    await waitFor(
      () => notices(adapter!.updatesOf(sessionId)).some((n) => n.title === "Goal complete"),
      "the goal completed after the resume",
    );
    await adapter!.fake.waitForRequests(4);
    expect(callOutput(3, "g2")).toMatchObject({ goal: { objective: "Ship the release", status: "complete" } });

    expect((await adapter!.prompt(sessionId, "/goal clear")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain("Goal cleared.");
    expect((await adapter!.prompt(sessionId, "/goal")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain("No goal is set.");
    expect((await adapter!.prompt(sessionId, "/goal clear")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain("There is no goal to clear.");
    expect((await adapter!.prompt(sessionId, "/goal pause")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId)).split("There is no goal to clear.").at(-1)).toContain(
      "No goal is set.",
    );
    expect(adapter!.fake.requests).toHaveLength(4);
  });

  it("is advertised with its input hint; an objective over Codex's limit is refused in the command's answer, the goal unchanged", async () => {
    const sessionId = await start([]);
    await waitFor(
      () => adapter!.updatesOf(sessionId).some((u) => u.sessionUpdate === "available_commands_update"),
      "the available commands",
    );
    const update = adapter!.updatesOf(sessionId).find((u) => u.sessionUpdate === "available_commands_update");
    expect(update && "availableCommands" in update ? update.availableCommands : []).toContainEqual({
      name: "goal",
      description: expect.any(String),
      input: { hint: expect.stringMatching(/pause \| resume \| clear/) },
    });
    expect((await adapter!.prompt(sessionId, `/goal ${"x".repeat(4001)}`)).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain(
      "at most 4000 characters for Codex; this one has 4001. The goal is unchanged.",
    );
    expect(adapter!.fake.requests).toHaveLength(0);
  });
});

describe("/goal (v2)", () => {
  type Update<K extends string> = Extract<v2.SessionUpdate, { sessionUpdate: K }>;
  const text = (updates: v2.SessionUpdate[]): string =>
    updates
      .filter((u): u is Update<"agent_message_chunk"> => u.sessionUpdate === "agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""))
      .join("");

  it("sets the goal (Codex works on it and completes it, the client is told) and clears it", async () => {
    v2Adapter = await startV2Adapter({ responses: [textResponse("Tidying."), ...completes("g3", "Tidy.")] });
    expect((await v2Adapter.initialize()).protocolVersion).toBe(2);
    const { sessionId } = await v2Adapter.newSession();
    const set = await v2Adapter.turn(sessionId, "/goal Tidy the docs");
    expect(set.idle).toMatchObject({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    expect(text(v2Adapter.updatesOf(sessionId))).toContain("Goal set: Tidy the docs");
    await waitFor(
      () => v2Adapter!.updatesOf(sessionId).some((u) => u.sessionUpdate === "notice" && u.title === "Goal complete"),
      "the notice that the goal is complete",
    );
    await waitFor(() => text(v2Adapter!.updatesOf(sessionId)).includes("Tidy."), "the model's last words");
    expect(JSON.stringify(v2Adapter.fake.requests[0]!.body.input)).toContain("Tidy the docs");

    await v2Adapter.turn(sessionId, "/goal");
    expect(text(v2Adapter.updatesOf(sessionId))).toContain("**Goal** (complete)");
    const cleared = await v2Adapter.turn(sessionId, "/goal clear");
    expect(cleared.idle).toMatchObject({ state: "idle", stopReason: "end_turn" });
    expect(text(v2Adapter.updatesOf(sessionId))).toContain("Goal cleared.");
    await v2Adapter.turn(sessionId, "/goal");
    expect(text(v2Adapter.updatesOf(sessionId))).toContain("No goal is set.");
  });
});
