// HistoryReplay (src/stored-sessions/history-replay.ts) alone, against a stand-in for Codex's thread/items/list,
// thread/turns/list and thread/read: the catch-up paths the e2e tests cannot provoke on demand (a first pass cut
// short by a timeout, a thread that cannot page, a history rewritten under the replay). Every
// case checks that each turn reaches the client exactly once, oldest first.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import {
  FIRST_HISTORY_PAGE_ITEMS,
  HISTORY_PAGE_ITEMS,
  HISTORY_PAGE_TARGET_CHARS,
  HistoryReplay,
} from "../../src/stored-sessions/history-replay.js";
import { FakeCodexClient, type Partly } from "../support/fake-codex-client.js";
import type { SessionUpdate } from "../../src/bridge/index.js";
import { CodexRpcError, type v2 } from "../../src/codex/index.js";

/** A turn as Codex stores it, with only the fields the replay reads. */
type Turn = Partly<v2.Turn> & { id: string; items: Array<Partly<v2.ThreadItem>> };
const turn = (n: number): Turn => ({
  id: `t${n}`,
  status: "completed",
  items: [{ type: "userMessage", id: `u${n}`, content: [{ type: "text", text: `turn ${n}` }] }],
});

/** A thread of `count` turns served in pages; `fail(call)` may throw for a given call. */
function fakeCodex(
  turns: Turn[],
  fail: (method: string, params: Record<string, unknown>) => Error | undefined = () => undefined,
) {
  const failing =
    <P extends Record<string, unknown>, R>(method: string, answer: (params: P) => R) =>
    (params: P): R => {
      const err = fail(method, params);
      if (err) throw err;
      return answer(params);
    };
  const fake = new FakeCodexClient({
    answers: {
      "thread/read": failing("thread/read", () => ({ thread: { id: "th", cwd: "/ws", turns } })),
      "thread/items/list": failing("thread/items/list", (params) => {
        const entries = turns.flatMap((t) =>
          t.items.map((item) => ({ turnId: t.id, item, startedAtMs: null, completedAtMs: null })),
        );
        const ordered = params.sortDirection === "desc" ? entries.reverse() : entries;
        const from = params.cursor ? Number(params.cursor) : 0;
        const limit = Number(params.limit);
        return {
          data: ordered.slice(from, from + limit),
          nextCursor: from + limit < ordered.length ? String(from + limit) : null,
          backwardsCursor: null,
        };
      }),
      "thread/turns/list": failing("thread/turns/list", (params) => {
        const limit = Number(params.limit);
        const ordered = params.sortDirection === "desc" ? [...turns].reverse() : turns;
        const from = params.cursor ? Number(params.cursor) : 0;
        const data = ordered
          .slice(from, from + limit)
          .map((t) => (params.itemsView === "notLoaded" ? { ...t, items: [] } : t));
        return { data, nextCursor: from + limit < ordered.length ? String(from + limit) : null };
      }),
    },
  });
  return {
    client: fake.client,
    get calls(): string[] {
      return fake.calls.map((c) => `${c.method} ${JSON.stringify(c.params)}`);
    },
  };
}

function replay(pageSize = 2, historyMode?: "legacy" | "paginated") {
  const sent: SessionUpdate[] = [];
  const history = new HistoryReplay({
    threadId: "th",
    send: async (u) => void sent.push(u),
    replay: {},
    log: pino({ level: "silent" }),
    pageSize,
    ...(historyMode ? { historyMode } : {}),
  });
  const texts = () =>
    sent
      .filter((u) => u.sessionUpdate === "user_message_chunk")
      .map((u) => ("content" in u && u.content && "text" in u.content ? u.content.text : ""));
  return { history, texts };
}

const all = (n: number) => Array.from({ length: n }, (_, i) => `turn ${i + 1}`);
const timeout = () => new CodexRpcError("codex did not answer thread/items/list within 120 s", -32603);

describe("history replay", () => {
  it("a first pass cut short (a page timed out) goes on from its cursor after the resume", async () => {
    const turns = Array.from({ length: 7 }, (_, i) => turn(i + 1));
    let failed = false;
    const codex = fakeCodex(turns, (method, params) => {
      if (method === "thread/items/list" && params.cursor === "4" && !failed) return ((failed = true), timeout());
      return undefined;
    });
    const { history, texts } = replay();
    history.start(Promise.resolve(codex.client));
    await history.firstPassWritten;
    expect(texts()).toEqual(all(4));
    await history.finish(codex.client);
    expect(texts()).toEqual(all(7));
    // From where it stopped, in order (not by collecting the newest turns backwards).
    expect(codex.calls.filter((c) => c.includes('"sortDirection":"asc"') && c.includes('"cursor":"4"'))).toHaveLength(
      2,
    );
  });

  it("an unindexed thread (no turns before the resume) is paged whole after it", async () => {
    const turns = Array.from({ length: 5 }, (_, i) => turn(i + 1));
    const { history, texts } = replay();
    history.start(Promise.resolve(fakeCodex([]).client)); // before the resume: "no turns"
    await history.firstPassWritten;
    expect(texts()).toEqual([]);
    await history.finish(fakeCodex(turns).client);
    expect(texts()).toEqual(all(5));
  });

  it("a thread that cannot page is read whole, once", async () => {
    const turns = Array.from({ length: 3 }, (_, i) => turn(i + 1));
    const codex = fakeCodex(turns, (method) =>
      method === "thread/items/list" ? new CodexRpcError("not supported for this rollout", -32600) : undefined,
    );
    const { history, texts } = replay();
    history.start(Promise.resolve(codex.client));
    await history.finish(codex.client);
    expect(texts()).toEqual(all(3));
    expect(codex.calls.filter((c) => c.startsWith("thread/read"))).toHaveLength(1);
  });

  it("turns newer than the index come after the ones sent, oldest first", async () => {
    const turns = Array.from({ length: 4 }, (_, i) => turn(i + 1));
    const { history, texts } = replay();
    history.start(Promise.resolve(fakeCodex(turns).client));
    await history.firstPassWritten;
    const grown = [...turns, turn(5), turn(6), turn(7)];
    await history.finish(fakeCodex(grown).client);
    expect(texts()).toEqual(all(7));
  });

  it("heavy items newer than the index are asked a few at a time, and past what is worth holding paged again from the start; each sent once, in order", async () => {
    const heavy = (n: number): Turn => ({
      id: `t${n}`,
      status: "completed",
      items: [
        { type: "userMessage", id: `u${n}`, content: [{ type: "text", text: `turn ${n}` }] },
        { type: "agentMessage", id: `m${n}`, text: "x".repeat(400_000) },
      ],
    });
    const turns = Array.from({ length: 4 }, (_, i) => turn(i + 1));
    const sent: SessionUpdate[] = [];
    const history = new HistoryReplay({
      threadId: "th",
      send: async (u) => void sent.push(u),
      replay: {},
      log: pino({ level: "silent" }),
    });
    history.start(Promise.resolve(fakeCodex(turns).client));
    await history.firstPassWritten;
    const grown = fakeCodex([...turns, ...Array.from({ length: 30 }, (_, i) => heavy(i + 5))]);
    await history.finish(grown.client);
    expect(
      sent
        .filter((u) => u.sessionUpdate === "user_message_chunk")
        .map((u) => ("content" in u && u.content && "text" in u.content ? u.content.text : "")),
    ).toEqual(all(34));
    const newestFirst = grown.calls
      .filter((c) => c.startsWith("thread/items/list") && c.includes('"sortDirection":"desc"'))
      .map((c) => Number(/"limit":(\d+)/.exec(c)?.[1]));
    // The one-item look at the newest, then pages that start small: never 32 items of 400 KB held at once.
    expect(newestFirst[0]).toBe(1);
    expect(Math.max(...newestFirst.slice(1))).toBeLessThanOrEqual(FIRST_HISTORY_PAGE_ITEMS);
  });

  it("a history rewritten under the replay (the last turn sent is gone) is paged again, nothing sent twice", async () => {
    const turns = Array.from({ length: 4 }, (_, i) => turn(i + 1));
    const { history, texts } = replay();
    history.start(Promise.resolve(fakeCodex(turns).client));
    await history.firstPassWritten;
    const rewritten = [turn(1), turn(2), turn(3), { ...turn(9), id: "t9" }, turn(10)];
    await history.finish(fakeCodex(rewritten).client);
    expect(texts()).toEqual(["turn 1", "turn 2", "turn 3", "turn 4", "turn 9", "turn 10"]);
  });

  it("a legacy thread (re-read from its rollout per page) is paged by turns, 100 at a time", async () => {
    const turns = Array.from({ length: 3 }, (_, i) => turn(i + 1));
    const codex = fakeCodex(turns);
    const sent: SessionUpdate[] = [];
    const history = new HistoryReplay({
      threadId: "th",
      historyMode: "legacy",
      send: async (u) => void sent.push(u),
      replay: {},
      log: pino({ level: "silent" }),
    });
    history.start(Promise.resolve(codex.client));
    await history.finish(codex.client);
    expect(sent.filter((u) => u.sessionUpdate === "user_message_chunk")).toHaveLength(3);
    expect(codex.calls.every((c) => !c.startsWith("thread/items/list"))).toBe(true);
    expect(codex.calls.filter((c) => c.startsWith("thread/turns/list") && c.includes('"limit":100'))).toHaveLength(1);
  });

  it("items arrive in pages of items, a turn split across pages is sent once and whole", async () => {
    const wide: Turn = {
      id: "t1",
      status: "completed",
      items: ["a", "b", "c"].map((x) => ({ type: "agentMessage", id: `m${x}`, text: x })),
    };
    const codex = fakeCodex([wide, turn(2)]);
    const sent: SessionUpdate[] = [];
    const history = new HistoryReplay({
      threadId: "th",
      send: async (u) => void sent.push(u),
      replay: {},
      log: pino({ level: "silent" }),
      pageSize: 2,
    });
    history.start(Promise.resolve(codex.client));
    await history.finish(codex.client);
    expect(sent.map((u) => ("content" in u && u.content && "text" in u.content ? u.content.text : ""))).toEqual([
      "a",
      "b",
      "c",
      "turn 2",
    ]);
    expect(
      codex.calls.filter((c) => c.startsWith("thread/items/list") && c.includes('"sortDirection":"asc"')),
    ).toHaveLength(2);
  });

  it("the first page is small, so the first turns are on screen soon; the pages after it double to full size", async () => {
    const turns = Array.from({ length: 60 }, (_, i) => turn(i + 1));
    const codex = fakeCodex(turns);
    const sent: SessionUpdate[] = [];
    const history = new HistoryReplay({
      threadId: "th",
      send: async (u) => void sent.push(u),
      replay: {},
      log: pino({ level: "silent" }),
    });
    history.start(Promise.resolve(codex.client));
    await history.finish(codex.client);
    expect(sent.map((u) => ("content" in u && u.content && "text" in u.content ? u.content.text : ""))).toEqual(
      all(60),
    );
    const limits = codex.calls
      .filter((c) => c.startsWith("thread/items/list") && c.includes('"sortDirection":"asc"'))
      .map((c) => Number(/"limit":(\d+)/.exec(c)?.[1]));
    expect(limits).toEqual([
      FIRST_HISTORY_PAGE_ITEMS,
      FIRST_HISTORY_PAGE_ITEMS * 2,
      HISTORY_PAGE_ITEMS,
      HISTORY_PAGE_ITEMS,
    ]);
    expect(FIRST_HISTORY_PAGE_ITEMS).toBeLessThan(HISTORY_PAGE_ITEMS);
  });

  it("pages of heavy items are asked smaller, and full-size again once the items are light; nothing lost or sent twice", async () => {
    const heavy = (n: number): Turn => ({
      id: `t${n}`,
      status: "completed",
      items: [{ type: "agentMessage", id: `m${n}`, text: `${n} ${"x".repeat(400_000)}` }],
    });
    const turns = [
      ...Array.from({ length: 20 }, (_, i) => turn(i + 1)),
      ...Array.from({ length: 40 }, (_, i) => heavy(i + 21)),
      ...Array.from({ length: 120 }, (_, i) => turn(i + 61)),
    ];
    const codex = fakeCodex(turns);
    const sent: SessionUpdate[] = [];
    const history = new HistoryReplay({
      threadId: "th",
      send: async (u) => void sent.push(u),
      replay: {},
      log: pino({ level: "silent" }),
    });
    history.start(Promise.resolve(codex.client));
    await history.finish(codex.client);
    const shown = sent
      .map((u) => ("content" in u && u.content && "text" in u.content ? u.content.text : ""))
      .map((t) => (t.startsWith("turn ") ? t : `heavy ${t.split(" ")[0]}`));
    expect(shown).toEqual(
      Array.from({ length: 180 }, (_, i) => (i >= 20 && i < 60 ? `heavy ${i + 1}` : `turn ${i + 1}`)),
    );
    const limits = codex.calls
      .filter((c) => c.startsWith("thread/items/list") && c.includes('"sortDirection":"asc"'))
      .map((c) => Number(/"limit":(\d+)/.exec(c)?.[1]));
    // 400 KB items: a page of them is kept near HISTORY_PAGE_TARGET_CHARS, not 32 x 400 KB.
    expect(Math.min(...limits)).toBeLessThanOrEqual(Math.ceil(HISTORY_PAGE_TARGET_CHARS / 400_000));
    expect(limits.at(-2)).toBe(HISTORY_PAGE_ITEMS);
  });

  it("an item of an unexpected shape costs only itself; ids Codex reuses in another turn are both replayed", async () => {
    const turns: Turn[] = [
      {
        id: "t1",
        status: "completed",
        items: [
          { type: "agentMessage", id: "same", text: "first" },
          { type: "agentMessage", text: "no id" },
        ],
      },
      { id: "t2", status: "completed", items: [{ type: "agentMessage", id: "same", text: "second" }] },
    ];
    const skipped: string[] = [];
    const sent: SessionUpdate[] = [];
    const history = new HistoryReplay({
      threadId: "th",
      send: async (u) => void sent.push(u),
      replay: { onSkip: (reason) => skipped.push(reason) },
      log: pino({ level: "silent" }),
      pageSize: 2,
    });
    const codex = fakeCodex(turns);
    history.start(Promise.resolve(codex.client));
    await history.finish(codex.client);
    expect(sent.map((u) => ("content" in u && u.content && "text" in u.content ? u.content.text : ""))).toEqual([
      "first",
      "second",
    ]);
    expect(skipped).toEqual(["item with an unexpected shape"]);
  });

  it("the tools of a turn still running (the newest, in progress) keep their state; older ones never finish", async () => {
    const tool = (id: string): Partly<v2.ThreadItem> => ({
      type: "commandExecution",
      id,
      command: "sleep 100",
      cwd: "/ws",
      status: "inProgress",
      commandActions: [],
      aggregatedOutput: null,
      exitCode: null,
    });
    const codex = fakeCodex([
      { id: "t1", status: "interrupted", items: [tool("old")] },
      { id: "t2", status: "inProgress", items: [tool("live")] },
    ]);
    const sent: SessionUpdate[] = [];
    const history = new HistoryReplay({
      threadId: "th",
      send: async (u) => void sent.push(u),
      replay: {},
      log: pino({ level: "silent" }),
    });
    history.start(Promise.resolve(codex.client));
    await history.finish(codex.client);
    const status = (id: string) =>
      sent.flatMap((u) => (u.sessionUpdate === "tool_call" && u.toolCallId === id ? [u.status] : []))[0];
    expect([status("old"), status("live")]).toEqual(["failed", "in_progress"]);
  });
});
