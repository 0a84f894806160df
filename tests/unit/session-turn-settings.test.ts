// What each turn/start carries. Codex keeps a turn's model, effort, approvals, sandbox, reviewer
// and speed for the turns after it, and applying them again costs it on every turn: they are sent
// when they changed, and again whenever the thread is bound to a codex child anew. The
// collaboration mode (not documented as kept) goes with every turn while it is set.
// AcpSession alone, with a stand-in for the codex client (the one thing it binds to).
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AcpSession } from "../../src/core/session/session.js";
import { note } from "../support/codex-messages.js";
import { FakeCodexClient, fakeHost } from "../support/fake-codex-client.js";

type Sent = Record<string, unknown>;

/** `refused`: how many turn/starts Codex refuses first. */
function sessionWithCodex(refused = 0) {
  const turnStarts: Sent[] = [];
  let turns = 0;
  const codex = new FakeCodexClient({
    answers: {
      "turn/start": (params) => {
        turnStarts.push(params);
        if (refused-- > 0) throw new Error("refused");
        const id = `turn-${++turns}`;
        setImmediate(() => codex.emit(note("turn/completed", { threadId: "t1", turn: { id, status: "completed" } })));
        return { turn: { id, status: "inProgress" } };
      },
    },
  });
  const log = pino({ level: "silent" });
  const session = new AcpSession(
    "t1",
    { cwd: "/ws", model: "m1", effort: "medium", approvalPolicy: "on-request" },
    {
      host: fakeHost(codex),
      log,
      sendUpdate: async () => undefined,
      display: () => ({}),
      answerServerRequest: async () => ({}),
    },
  );
  session.bind(codex.client, 1);
  const prompt = () => session.prompt([{ type: "text", text: "hi", text_elements: [] }]);
  return { session, client: codex.client, turnStarts, prompt };
}

const SETTING_KEYS = ["model", "effort", "approvalPolicy", "sandboxPolicy", "approvalsReviewer", "serviceTier"];
const settingsIn = (sent: Sent): Sent =>
  Object.fromEntries(Object.entries(sent).filter(([k]) => SETTING_KEYS.includes(k)));
/** The session's settings, as a turn/start that carries them has them. */
const ALL = { model: "m1", effort: "medium", approvalPolicy: "on-request" };

describe("the settings a turn/start carries", () => {
  it("the first turn carries them; a turn with nothing changed carries none; a change is sent once", async () => {
    const { session, turnStarts, prompt } = sessionWithCodex();
    await prompt();
    await prompt();
    session.update({ settings: { model: "m2" } });
    await prompt();
    await prompt();
    expect(turnStarts.map(settingsIn)).toEqual([ALL, {}, { ...ALL, model: "m2" }, {}]);
  });

  it("bound to a codex child anew (a restart, a load), the thread gets them all again", async () => {
    const { session, client, turnStarts, prompt } = sessionWithCodex();
    await prompt();
    session.bind(client, 1);
    await prompt();
    expect(turnStarts.map(settingsIn)).toEqual([ALL, ALL]);
  });

  it("after another kind of turn (a review, a compaction) the next prompt carries them all again", async () => {
    const { session, client, turnStarts, prompt } = sessionWithCodex();
    await prompt();
    await session.runTurn("thread/compact/start", () => client.call("turn/start", { threadId: "t1", input: [] }));
    await prompt();
    expect(turnStarts.map(settingsIn)).toEqual([ALL, {}, ALL]);
  });

  it("a turn/start Codex refused leaves them unsent: the next turn carries them", async () => {
    const { turnStarts, prompt } = sessionWithCodex(1);
    await expect(prompt()).rejects.toThrow();
    await prompt();
    expect(turnStarts.map(settingsIn)).toEqual([ALL, ALL]);
  });

  it("a speed chosen before and dropped since (the new model has no such tier) is cleared, once", async () => {
    const { session, turnStarts, prompt } = sessionWithCodex();
    session.update({ settings: { serviceTier: "fast" } });
    await prompt();
    session.update({ settings: { serviceTier: undefined } });
    await prompt();
    await prompt();
    expect(turnStarts.map((t) => t.serviceTier)).toEqual(["fast", null, undefined]);
  });

  it("plan mode's collaboration mode goes with every turn while it is set", async () => {
    const { session, turnStarts, prompt } = sessionWithCodex();
    session.update({ settings: { collaborationMode: "plan" } });
    await prompt();
    await prompt();
    expect(turnStarts).toHaveLength(2); // (the loop below checks nothing over no turns)
    for (const sent of turnStarts)
      expect(sent.collaborationMode).toEqual({
        mode: "plan",
        settings: { model: "m1", reasoning_effort: "medium", developer_instructions: null },
      });
  });
});
