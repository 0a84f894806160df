// Turn ids bound to the prompt that started them (issue 26). A cancel that arrives before Codex
// has answered `turn/start` (a resume of a large session takes over a second) used to wait for
// that answer, and the cancelled turn's late `turn/started` / `turn/completed` were then taken
// for the next prompt's: the next prompt answered `cancelled` while Codex ran it to the end.
// AcpSession alone, with a stand-in codex client whose answers the test releases one by one.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AcpSession } from "../../src/core/session/session.js";
import type { CodexMethod, UserInput } from "../../src/codex/index.js";
import type { SessionUpdate } from "../../src/bridge/index.js";
import { codexTurn, note } from "../support/codex-messages.js";
import { FakeCodexClient, fakeHost } from "../support/fake-codex-client.js";

type Call = { method: CodexMethod; params: unknown; answer(value: unknown): void; fail(err: Error): void };

/** A codex client whose every call waits until the test answers it. */
function heldCodex() {
  const calls: Call[] = [];
  const waiters: Array<() => void> = [];
  const codex = new FakeCodexClient({
    otherwise: ({ method, params }) =>
      new Promise((answer, fail) => {
        calls.push({ method, params, answer, fail });
        for (const wake of waiters.splice(0)) wake();
      }),
  });
  /** The n-th call of `method` (1-based), once it is made. */
  const nth = async (method: string, n = 1): Promise<Call> => {
    for (;;) {
      const found = calls.filter((c) => c.method === method)[n - 1];
      if (found) return found;
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  const emit = (method: string, params: Record<string, unknown>) =>
    codex.emit(note(method, { threadId: "t1", ...params }));
  return { fake: codex, calls, nth, emit };
}

const turn = (id: string, status: string) => codexTurn(id, status);
const text = (t: string): UserInput[] => [{ type: "text", text: t, text_elements: [] }];

function sessionOn(codex: ReturnType<typeof heldCodex>) {
  const sent: SessionUpdate[] = [];
  const session = new AcpSession(
    "t1",
    { cwd: "/ws" },
    {
      host: fakeHost(codex.fake),
      log: pino({ level: "silent" }),
      sendUpdate: async (_id, u) => void sent.push(u),
      display: () => ({}),
      answerServerRequest: async () => ({}),
    },
  );
  session.bind(codex.fake.client, 1);
  return { session, sent };
}

/** Resolves with the prompt's answer, or "pending" if it has none once queued work has run. */
async function settledOrPending<T>(p: Promise<T>): Promise<T | "pending"> {
  const marker = Symbol("pending");
  const raced = await Promise.race([p, new Promise<typeof marker>((r) => setImmediate(() => r(marker)))]);
  return raced === marker ? "pending" : raced;
}

describe("a cancel before Codex has answered turn/start", () => {
  it("answers the prompt without waiting for that answer, then interrupts the turn once its id is known", async () => {
    const codex = heldCodex();
    const { session } = sessionOn(codex);
    const first = session.prompt(text("one"));
    const start = await codex.nth("turn/start");
    await session.cancel();
    // Codex has not answered turn/start: the prompt is answered by the cancel's fallback anyway.
    expect((await first).stopReason).toBe("cancelled");
    expect(codex.calls.some((c) => c.method === "turn/interrupt")).toBe(false);
    start.answer({ turn: turn("turn-1", "inProgress") });
    const interrupt = await codex.nth("turn/interrupt");
    expect(interrupt.params).toEqual({ threadId: "t1", turnId: "turn-1" });
    interrupt.answer({});
  });

  it("keeps the cancelled turn's late events from the client and from the next prompt", async () => {
    const codex = heldCodex();
    const { session, sent } = sessionOn(codex);
    const first = session.prompt(text("one"));
    const start1 = await codex.nth("turn/start");
    await session.cancel();
    expect((await first).stopReason).toBe("cancelled");

    // The next prompt is sent while the first turn/start is still unanswered.
    const second = session.prompt(text("two"));
    start1.answer({ turn: turn("turn-1", "inProgress") });
    (await codex.nth("turn/interrupt")).answer({});
    const start2 = await codex.nth("turn/start", 2);
    // The first turn's late events arrive before the second turn/start is answered.
    codex.emit("turn/started", { turn: turn("turn-1", "inProgress") });
    codex.emit("item/agentMessage/delta", {
      turnId: "turn-1",
      itemId: "m1",
      delta: "late output of the cancelled turn",
    });
    codex.emit("turn/completed", { turn: turn("turn-1", "interrupted") });
    expect(await settledOrPending(second)).toBe("pending");

    start2.answer({ turn: turn("turn-2", "inProgress") });
    codex.emit("turn/started", { turn: turn("turn-2", "inProgress") });
    codex.emit("item/agentMessage/delta", { turnId: "turn-2", itemId: "m2", delta: "the answer" });
    expect(await settledOrPending(second)).toBe("pending");
    codex.emit("turn/completed", { turn: turn("turn-2", "completed") });
    expect((await second).stopReason).toBe("end_turn");
    await session.flush();
    const said = sent.flatMap((u) =>
      u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [],
    );
    expect(said).toEqual(["the answer"]);
  });

  it("settles a turn whose turn/completed came before the answer to turn/start", async () => {
    const codex = heldCodex();
    const { session } = sessionOn(codex);
    const prompt = session.prompt(text("quick"));
    const start = await codex.nth("turn/start");
    codex.emit("turn/started", { turn: turn("turn-9", "inProgress") });
    codex.emit("turn/completed", { turn: turn("turn-9", "completed") });
    start.answer({ turn: turn("turn-9", "inProgress") });
    expect((await prompt).stopReason).toBe("end_turn");
  });

  it("does not leave the next prompt waiting when the cancelled turn/start fails", async () => {
    const codex = heldCodex();
    const { session } = sessionOn(codex);
    const first = session.prompt(text("one"));
    const start1 = await codex.nth("turn/start");
    await session.cancel();
    expect((await first).stopReason).toBe("cancelled");
    const second = session.prompt(text("two"));
    start1.fail(new Error("codex refused the turn"));
    const start2 = await codex.nth("turn/start", 2);
    start2.answer({ turn: turn("turn-2", "inProgress") });
    codex.emit("turn/completed", { turn: turn("turn-2", "completed") });
    expect((await second).stopReason).toBe("end_turn");
  });
});

describe("items a turn left open", () => {
  it("are not the next turn's running calls once the turn was given up or its codex died", async () => {
    const codex = heldCodex();
    const { session } = sessionOn(codex);
    const first = session.prompt(text("one"));
    (await codex.nth("turn/start")).answer({ turn: turn("turn-1", "inProgress") });
    codex.emit("item/started", {
      turnId: "turn-1",
      item: {
        type: "commandExecution",
        id: "cmd-1",
        command: "sleep 100",
        cwd: "/ws",
        status: "inProgress",
        commandActions: [],
      },
    });
    expect([...session.items.keys()]).toEqual(["cmd-1"]);
    await session.cancel(); // codex never confirms: the turn is given up
    expect((await first).stopReason).toBe("cancelled");
    expect(session.items.size).toBe(0);

    const second = session.prompt(text("two"));
    (await codex.nth("turn/start", 2)).answer({ turn: turn("turn-2", "inProgress") });
    codex.emit("item/started", {
      turnId: "turn-2",
      item: {
        type: "commandExecution",
        id: "cmd-2",
        command: "make",
        cwd: "/ws",
        status: "inProgress",
        commandActions: [],
      },
    });
    session.childExited(1, "killed");
    await expect(second).rejects.toThrow();
    expect(session.items.size).toBe(0);
  });
});

describe("a turn/completed with a status this build does not know (a newer codex)", () => {
  it("still ends the prompt (as a normal end), instead of leaving it waiting forever", async () => {
    const codex = heldCodex();
    const { session } = sessionOn(codex);
    const prompt = session.prompt(text("one"));
    (await codex.nth("turn/start")).answer({ turn: turn("turn-1", "inProgress") });
    codex.emit("turn/completed", { turn: turn("turn-1", "someNewStatus") });
    expect((await prompt).stopReason).toBe("end_turn");
  });
});

describe("a final error for a turn Codex never started (a review where there is no git repository)", () => {
  const failure = (turnId: string) => ({
    turnId,
    willRetry: false,
    error: { message: '"/ws" is not a git repository', codexErrorInfo: "other", additionalDetails: null },
  });

  it("ends the prompt with that error: Codex sends no turn/completed for it (the error may come before the start's answer)", async () => {
    const codex = heldCodex();
    const { session } = sessionOn(codex);
    const prompt = session.prompt(text("one"));
    const start = await codex.nth("turn/start");
    codex.emit("error", failure("turn-1"));
    expect(await settledOrPending(prompt)).toBe("pending"); // until Codex names the turn
    start.answer({ turn: turn("turn-1", "inProgress") });
    await expect(prompt).rejects.toThrow(/not a git repository/);
  });

  it("a started turn still ends with its own turn/completed, not with the error before it", async () => {
    const codex = heldCodex();
    const { session } = sessionOn(codex);
    const prompt = session.prompt(text("one"));
    (await codex.nth("turn/start")).answer({ turn: turn("turn-1", "inProgress") });
    codex.emit("turn/started", { turn: turn("turn-1", "inProgress") });
    codex.emit("error", failure("turn-1"));
    expect(await settledOrPending(prompt)).toBe("pending");
    codex.emit("turn/completed", { turn: turn("turn-1", "failed") });
    await expect(prompt).rejects.toThrow(/not a git repository/);
  });
});

describe("after a cancelled prompt is answered", () => {
  it("its turn's late item events reach the client no more (ACP: every update before the cancelled answer); the next turn's do", async () => {
    const codex = heldCodex();
    const { session, sent } = sessionOn(codex);
    const command = (status: string) => ({
      type: "commandExecution",
      id: "cmd-1",
      command: "sleep 1; echo ran > f",
      cwd: "/ws",
      status,
      commandActions: [],
    });
    const first = session.prompt(text("one"));
    (await codex.nth("turn/start")).answer({ turn: turn("turn-1", "inProgress") });
    codex.emit("turn/started", { turn: turn("turn-1", "inProgress") });
    codex.emit("item/started", { turnId: "turn-1", item: command("inProgress") });
    const cancelled = session.cancel();
    (await codex.nth("turn/interrupt")).answer({});
    await cancelled;
    codex.emit("turn/completed", { turn: turn("turn-1", "interrupted") });
    expect((await first).stopReason).toBe("cancelled");
    await session.flush();
    const before = sent.length;
    // Codex lets the command finish and reports it after the turn's end.
    codex.emit("item/completed", { turnId: "turn-1", item: command("completed") });
    await session.flush();
    expect(sent.slice(before)).toEqual([]);

    const second = session.prompt(text("two"));
    (await codex.nth("turn/start", 2)).answer({ turn: turn("turn-2", "inProgress") });
    codex.emit("turn/started", { turn: turn("turn-2", "inProgress") });
    codex.emit("item/agentMessage/delta", { turnId: "turn-2", itemId: "m2", delta: "the answer" });
    codex.emit("turn/completed", { turn: turn("turn-2", "completed") });
    expect((await second).stopReason).toBe("end_turn");
    await session.flush();
    expect(sent.slice(before)).toContainEqual(expect.objectContaining({ sessionUpdate: "agent_message_chunk" }));
  });
});
