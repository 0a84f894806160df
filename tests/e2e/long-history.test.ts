// session/load of a long stored session (many turns, large command outputs): the history is
// read from Codex page by page and streamed (src/stored-sessions/history-replay.ts); across page boundaries
// every turn arrives once, in order, with its user and agent text complete, and every command's
// output is capped with a visible note. The size figures (hundreds of MB) are in `npm run bench`.
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import {
  createCodexHome,
  defaultCodexPath,
  startFakeModel,
  type CodexHome,
  type FakeModel,
} from "../../tools/fake-model/index.js";
import { OUTPUT_TAIL_CHARS } from "../../src/bridge/commands.js";
import { HISTORY_PAGE_ITEMS } from "../../src/stored-sessions/history-replay.js";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { makeStoredSession, primeStoredSession, type StoredSession } from "../support/stored-session.js";

// Four items per stored turn (user message, reasoning, command, agent message): two full pages and
// a short one after the first, smaller page (FIRST_HISTORY_PAGE_ITEMS).
const TURNS = (HISTORY_PAGE_ITEMS / 4) * 2 + 3;
const OUTPUT_BYTES = 100_000;

let fake: FakeModel;
let home: CodexHome;
let workspace: string;
let stored: StoredSession;
let adapter: Adapter;

beforeAll(async () => {
  fake = await startFakeModel([]);
  home = await createCodexHome({ modelUrl: fake.url });
  workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-long-")));
  stored = await makeStoredSession({
    codexHome: home.codexHome,
    cwd: workspace,
    turns: TURNS,
    outputBytes: OUTPUT_BYTES,
  });
  await primeStoredSession({
    codexPath: defaultCodexPath(),
    env: { ...process.env, ...home.env },
    threadId: stored.threadId,
  });
  adapter = await startAdapter({ fake, home, workspace });
  await adapter.initialize();
}, 120_000);

afterAll(async () => {
  await adapter?.close();
  await fake?.close();
  await home?.cleanup();
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

const textOf = (u: acp.SessionUpdate): string =>
  "content" in u && u.content && !Array.isArray(u.content) && u.content.type === "text" ? u.content.text : "";

describe("a long stored session", () => {
  it("loads every turn once, in order, text complete, command outputs capped with a note", async () => {
    await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId: stored.threadId,
      cwd: workspace,
      mcpServers: [],
    });
    const updates = adapter.updatesOf(stored.threadId);

    const users = updates.filter((u) => u.sessionUpdate === "user_message_chunk").map(textOf);
    expect(users).toEqual(
      Array.from(
        { length: TURNS },
        (_, t) => `Turn ${t + 1} of ${TURNS}: please run the listing for batch #${t + 1} and summarise it.`,
      ),
    );
    const answers = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map(textOf);
    expect(answers).toHaveLength(TURNS);
    answers.forEach((text, t) =>
      expect(text).toMatch(new RegExp(`^Turn ${t + 1} done: .*nothing unusual in batch #${t + 1}\\.$`)),
    );

    const calls = updates.filter(
      (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }> => u.sessionUpdate === "tool_call",
    );
    expect(calls.map((c) => c.toolCallId)).toEqual(Array.from({ length: TURNS }, (_, t) => `call_t${t + 1}_exec`));
    for (const [t, call] of calls.entries()) {
      expect(call.status).toBe("completed");
      const output =
        call.content
          ?.map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
          .join("\n") ?? "";
      // The tail of the output, a note saying how much was left out, and the exit code.
      expect(output).toContain(`[... ${OUTPUT_BYTES - OUTPUT_TAIL_CHARS} earlier characters not shown]`);
      expect(output.length).toBeLessThan(OUTPUT_TAIL_CHARS + 200);
      expect(output).toMatch(new RegExp(`t${t + 1} line \\d+`));
      expect(output).toContain("Exit code: 0");
    }

    // Each turn's updates stay together and in order: user, thought, command, answer.
    const order = updates
      .filter((u) =>
        ["user_message_chunk", "agent_thought_chunk", "tool_call", "agent_message_chunk"].includes(u.sessionUpdate),
      )
      .map((u) => u.sessionUpdate);
    expect(order).toEqual(
      Array.from({ length: TURNS }, () => [
        "user_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "agent_message_chunk",
      ]).flat(),
    );
  });

  it("is continued after the load: the model gets the stored turns as history", async () => {
    fake.enqueue({ items: [{ type: "message", text: "continued" }] });
    const result = await adapter.prompt(stored.threadId, "one more");
    expect(result.stopReason).toBe("end_turn");
    const request = JSON.stringify(fake.requests.at(-1)?.body ?? {});
    expect(request).toContain(`batch #${TURNS}`);
    expect(request).toContain("one more");
  });
});

describe("a stored session Codex has not indexed as it is", () => {
  /** Runs `body` with an adapter on a Codex home of its own (removed after). */
  async function withOwnHome(body: (a: Adapter, home: CodexHome) => Promise<void>): Promise<void> {
    const own = await createCodexHome({ modelUrl: fake.url });
    const a = await startAdapter({ fake, home: own, workspace });
    try {
      await a.initialize({ _meta: { terminal_output: true } });
      await body(a, own);
    } finally {
      await a.close();
      await own.cleanup();
    }
  }
  /**
   * Loads the session; returns its users' texts, having checked that only the newest turn's
   * commands came as terminal cards. `indexBehind`: the pass before the resume saw an older
   * newest turn (Codex's index lagged), whose one command went out as a terminal card too.
   */
  const loadUsers = async (a: Adapter, id: string, indexBehind = false): Promise<string[]> => {
    await a.agent.request(acp.methods.agent.session.load, { sessionId: id, cwd: workspace, mcpServers: [] });
    const updates = a.updatesOf(id);
    const newestTurnAt = updates.findLastIndex((u) => u.sessionUpdate === "user_message_chunk");
    const terminalsAt = updates.flatMap((u, i) =>
      u.sessionUpdate === "tool_call" && u.content?.some((c) => c.type === "terminal") ? [i] : [],
    );
    const commandsAt = updates.flatMap((u, i) => (u.sessionUpdate === "tool_call" && u.kind === "execute" ? [i] : []));
    expect(terminalsAt.length).toBeGreaterThan(0);
    const newest = commandsAt.filter((i) => i > newestTurnAt);
    expect(terminalsAt.filter((i) => i > newestTurnAt)).toEqual(newest);
    // With the index behind, the pass before the resume may (or, cut short by the resume on a busy
    // machine, may not) have reached the command of the turn that index thought newest.
    expect(terminalsAt.filter((i) => i < newestTurnAt).length).toBeLessThanOrEqual(indexBehind ? 1 : 0);
    return updates.filter((u) => u.sessionUpdate === "user_message_chunk").map(textOf);
  };
  const usersOf = (turns: number): string[] =>
    Array.from(
      { length: turns },
      (_, t) => `Turn ${t + 1} of ${turns}: please run the listing for batch #${t + 1} and summarise it.`,
    );

  it("never opened by Codex (no history index yet): the whole history, once", () =>
    withOwnHome(async (a, own) => {
      const s = await makeStoredSession({
        codexHome: own.codexHome,
        cwd: workspace,
        turns: 25,
        outputBytes: 1000,
        commands: "run",
      });
      expect(await loadUsers(a, s.threadId)).toEqual(usersOf(25));
    }));

  it("turns appended to the rollout after Codex indexed it: the indexed ones, then the newer ones, each once, in order", () =>
    withOwnHome(async (a, own) => {
      const s = await makeStoredSession({
        codexHome: own.codexHome,
        cwd: workspace,
        turns: 30,
        outputBytes: 1000,
        commands: "run",
      });
      // Codex indexes the first 25 turns; then the last 5 are appended (as another Codex would).
      const whole = await readFile(s.rolloutPath, "utf8");
      const lines = whole.split("\n");
      const starts = lines.flatMap((l, i) => (l.includes('"type":"task_started"') ? [i] : []));
      await writeFile(s.rolloutPath, `${lines.slice(0, starts[25]).join("\n")}\n`);
      await primeStoredSession({
        codexPath: defaultCodexPath(),
        env: { ...process.env, ...own.env },
        threadId: s.threadId,
      });
      await writeFile(s.rolloutPath, whole);
      // The texts say it is the 30-turn session throughout: "Turn N of 30".
      expect(await loadUsers(a, s.threadId, true)).toEqual(usersOf(30));
    }));
});
