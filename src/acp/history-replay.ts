// session/load's history, streamed: Codex's stored turns are read a page at a time
// (`thread/turns/list`, oldest first) and each page's updates are written to the client before
// the page after next is asked for. Memory stays at about two pages whatever the stored session
// weighs (sessions of hundreds of MB exist), the client sees the first turns as soon as Codex
// answers the first page, and reading the next page overlaps writing this one.
import { z } from "zod";
import { CodexRpcError, threadSchema, type AppServerClient } from "../codex/index.js";
import { replayTurns, type ReplayOptions } from "../bridge/index.js";
import type { Logger } from "../log/index.js";
import type { AcpSession } from "./session.js";

/** Turns per `thread/turns/list` page: small enough that a page of huge command outputs stays a few MB. */
export const HISTORY_PAGE_TURNS = 20;

const turnsPageSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string(), status: z.string(), items: z.array(z.unknown()) })),
  nextCursor: z.string().nullish(),
});
const threadReadResponseSchema = z.looseObject({ thread: threadSchema });

type TurnsPage = { turns: unknown[]; next: string | undefined };

export type HistoryReplayed = { turns: number; updates: number; pages: number };

/** Sends the whole stored history of `session`'s thread to the client, in order; resolves once it is written. */
export async function replayHistory(
  client: AppServerClient,
  session: AcpSession,
  replay: Omit<ReplayOptions, "cwd">,
  log: Logger,
  pageTurns = HISTORY_PAGE_TURNS,
): Promise<HistoryReplayed> {
  const done: HistoryReplayed = { turns: 0, updates: 0, pages: 0 };
  const send = async (turns: unknown[]): Promise<void> => {
    const updates = replayTurns(turns, { ...replay, cwd: session.cwd });
    for (const update of updates) session.send(update).catch(() => undefined);
    await session.flush();
    done.turns += turns.length;
    done.updates += updates.length;
    done.pages += 1;
  };
  const page = async (cursor: string | undefined): Promise<TurnsPage> => {
    const read = await client.call(
      "thread/turns/list",
      { threadId: session.id, itemsView: "full", sortDirection: "asc", limit: pageTurns, ...(cursor ? { cursor } : {}) },
      turnsPageSchema,
    );
    return { turns: read.data, next: read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined };
  };

  let current: TurnsPage;
  try {
    current = await page(undefined);
  } catch (err) {
    if (!(err instanceof CodexRpcError)) throw err;
    // Older (legacy) rollouts may not page: read them whole.
    log.info({ sessionId: session.id, err: err.message }, "thread/turns/list failed; reading the whole thread");
    const read = await client.call("thread/read", { threadId: session.id, includeTurns: true }, threadReadResponseSchema);
    await send(read.thread.turns ?? []);
    return done;
  }
  for (;;) {
    // Ask for the next page first, so Codex reads it while this one is translated and written.
    const next = current.next !== undefined ? page(current.next) : undefined;
    // A failed write must not leave the prefetched page's rejection unobserved.
    next?.catch(() => undefined);
    await send(current.turns);
    if (!next) return done;
    current = await next;
  }
}
