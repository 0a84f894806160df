// History pages over items of uneven weight (src/stored-sessions/history-replay.ts): in a session
// where every turn has one heavy item among light ones (user message, reasoning, a command output of
// 1-2 MB, answer), a page cut down to 2-3 items can hold only light ones; the page after must not
// then be asked full-size (32 items = 8 heavy outputs, 8 MB, eight times HISTORY_PAGE_TARGET_CHARS).
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { HISTORY_PAGE_TARGET_CHARS, HistoryReplay } from "../../src/stored-sessions/history-replay.js";
import type { v2 } from "../../src/codex/index.js";
import { FakeCodexClient, type Partly } from "../support/fake-codex-client.js";

function codexOf(turns: number, outputOf: (t: number) => number) {
  const entries = Array.from(
    { length: turns },
    (_, t): Array<Partly<v2.ThreadItemsListResponse["data"][number]>> => [
      { turnId: `t${t}`, item: { type: "userMessage", id: `u${t}`, content: [{ type: "text", text: `turn ${t}` }] } },
      { turnId: `t${t}`, item: { type: "reasoning", id: `r${t}`, summary: ["thinking"], content: [] } },
      {
        turnId: `t${t}`,
        item: {
          type: "commandExecution",
          id: `c${t}`,
          command: "cat x",
          cwd: "/w",
          status: "completed",
          commandActions: [],
          aggregatedOutput: "o".repeat(outputOf(t)),
          exitCode: 0,
        },
      },
      { turnId: `t${t}`, item: { type: "agentMessage", id: `a${t}`, text: `done ${t}` } },
    ],
  ).flat();
  const pages: number[] = [];
  const codex = new FakeCodexClient({
    answers: {
      "thread/turns/list": () => ({ data: [{ id: `t${turns - 1}`, status: "completed" }] }),
      "thread/items/list": (params) => {
        const ordered = params.sortDirection === "desc" ? [...entries].reverse() : entries;
        const from = params.cursor ? Number(params.cursor) : 0;
        const limit = params.limit ?? 0;
        const data = ordered.slice(from, from + limit);
        if (params.sortDirection === "asc")
          pages.push(
            data.reduce(
              (n, e) => n + (e.item && "aggregatedOutput" in e.item ? (e.item.aggregatedOutput?.length ?? 0) : 0),
              0,
            ),
          );
        return { data, nextCursor: from + limit < ordered.length ? String(from + limit) : null };
      },
    },
  });
  const client = codex.client;
  return { client, pages };
}

describe("page sizes over items of uneven weight", () => {
  it.each([
    ["every turn's output 1 MB", (_t: number) => 1_000_000],
    ["outputs alternating 1 byte and 2 MB", (t: number) => (t % 2 ? 2_000_000 : 1)],
  ])("%s: no page carries more than a few times the target", async (_name, outputOf) => {
    const codex = codexOf(120, outputOf);
    const history = new HistoryReplay({
      threadId: "th",
      send: async () => undefined,
      replay: { cwd: "/w" },
      log: pino({ level: "silent" }),
    });
    history.start(Promise.resolve(codex.client));
    await history.finish(codex.client);
    expect(history.sent.items).toBe(480);
    // 2 heavy items of up to 2 MB may share a page (MIN_PAGE_ITEMS); 8 MB pages come from a full-size page after a light one.
    expect(Math.max(...codex.pages)).toBeLessThanOrEqual(4 * HISTORY_PAGE_TARGET_CHARS);
  });
});
