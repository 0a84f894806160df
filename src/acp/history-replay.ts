// session/load's history, streamed: Codex's stored turns are read a page at a time
// (`thread/turns/list`, oldest first) and each page's updates are written to the client before
// the page after next is asked for. Memory stays at about two pages whatever the stored session
// weighs (sessions of hundreds of MB exist), and reading the next page overlaps writing this one.
//
// The pages are read while Codex resumes the thread (`start`, before thread/resume): resuming a
// 300 MB session takes Codex over a second, and its history index answers meanwhile, so the
// client sees the first turns at once. After the resume, `finish` reads what that pass could not
// have seen: everything, when Codex had not indexed the thread yet (it answers "no turns" until
// its first resume); the rest, when the pass was cut short; and any turn newer than the last one
// sent (the index can lag a rollout another Codex version appended to).
import { z } from "zod";
import { CodexRpcError, threadReadResponseSchema, type AppServerClient, type v2 } from "../codex/index.js";
import { replayTurns, type ReplayOptions, type SessionUpdate } from "../bridge/index.js";
import type { Logger } from "../log/index.js";

/**
 * Turns per `thread/turns/list` page: a page of huge command outputs stays about 1 MB, young
 * enough to die in V8's small young generation (a 300 MB load: 5 turns grow RSS 58 MiB, 20: 75).
 */
export const HISTORY_PAGE_TURNS = 5;
/** A legacy (pre-index) thread is re-read from its rollout for every page: fewer, larger pages (Codex serves at most 100). */
const LEGACY_PAGE_TURNS = 100;
/** Pages of turns newer than the index collected before paging the thread again instead. */
const NEWER_TURNS_PAGES = 4;

const turnsPageSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string(), status: z.string(), items: z.array(z.unknown()).optional() })),
  nextCursor: z.string().nullish(),
});

type Turn = z.infer<typeof turnsPageSchema>["data"][number];

export type HistoryReplayed = { turns: number; updates: number; pages: number };

export type HistoryReplayOptions = {
  threadId: string;
  /** The stored thread's history mode, when known (a legacy thread is re-read per page). */
  historyMode?: v2.ThreadHistoryMode;
  /** Writes one update to the client; resolves once it is on its way. */
  send: (update: SessionUpdate) => Promise<void>;
  replay: ReplayOptions;
  log: Logger;
  pageTurns?: number;
};

export class HistoryReplay {
  readonly sent: HistoryReplayed = { turns: 0, updates: 0, pages: 0 };
  private lastTurnId: string | undefined;
  /** Where the first pass stopped before the end (cut short by an error or `stop`). */
  private resumeCursor: string | undefined;
  /** Every turn sent, so no catch-up sends one twice. */
  private readonly sentIds = new Set<string>();
  private stopped = false;
  private firstPass: Promise<void> | undefined;
  private readonly pageTurns: number;

  constructor(private readonly opts: HistoryReplayOptions) {
    this.pageTurns = opts.pageTurns ?? (opts.historyMode === "legacy" ? LEGACY_PAGE_TURNS : HISTORY_PAGE_TURNS);
  }

  /** Starts sending what Codex can serve now (call before thread/resume). */
  start(client: Promise<AppServerClient>): void {
    // Whatever stops this pass (a timeout, an error, no index yet), `finish` picks up after the resume.
    this.firstPass = client.then((c) => this.pages(c, undefined)).catch((err: unknown) => {
      this.opts.log.debug({ sessionId: this.opts.threadId, err: String(err) }, "history pass before the resume stopped; finished after it");
    });
  }

  /** Settles once the pass started by `start` has written what it read. */
  get firstPassWritten(): Promise<void> {
    return this.firstPass ?? Promise.resolve();
  }

  /** Sends whatever the first pass did not (call after thread/resume); resolves once the whole history is written. */
  async finish(client: AppServerClient): Promise<HistoryReplayed> {
    await this.firstPass;
    if (this.stopped) return this.sent;
    if (this.lastTurnId === undefined) {
      // Nothing came before the resume (not indexed yet, an empty thread, an error): all of it now.
      try {
        await this.pages(client, undefined);
      } catch (err) {
        if (!(err instanceof CodexRpcError) || this.lastTurnId !== undefined) throw err;
        // Older (legacy) rollouts may not page: read them whole.
        this.opts.log.info({ sessionId: this.opts.threadId, err: err.message }, "thread/turns/list failed; reading the whole thread");
        const read = await client.call("thread/read", { threadId: this.opts.threadId, includeTurns: true }, threadReadResponseSchema);
        await this.sendTurns(read.thread.turns ?? []);
      }
      return this.sent;
    }
    if (this.resumeCursor !== undefined) await this.pages(client, this.resumeCursor);
    await this.newerTurns(client);
    return this.sent;
  }

  /** Stops sending (the load failed). */
  stop(): void {
    this.stopped = true;
  }

  /** Pages from `cursor` to the end, each page requested while the one before is written. */
  private async pages(client: AppServerClient, cursor: string | undefined): Promise<void> {
    let current = await this.page(client, cursor);
    for (;;) {
      const next = current.next !== undefined ? this.page(client, current.next) : undefined;
      // A failed write must not leave the prefetched page's rejection unobserved.
      next?.catch(() => undefined);
      this.resumeCursor = current.next;
      await this.sendTurns(current.turns);
      if (!next || this.stopped) return;
      current = await next;
    }
  }

  private async page(client: AppServerClient, cursor: string | undefined): Promise<{ turns: Turn[]; next: string | undefined }> {
    const read = await client.call(
      "thread/turns/list",
      { threadId: this.opts.threadId, itemsView: "full", sortDirection: "asc", limit: this.pageTurns, ...(cursor ? { cursor } : {}) },
      turnsPageSchema,
    );
    return { turns: read.data, next: read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined };
  }

  /**
   * Turns newer than the last one sent (Codex lists them newest first; they are sent oldest
   * first). A few pages are collected; past that, or when the last turn sent is not found (a
   * rewritten history), the thread is paged again from the start, skipping every turn sent.
   */
  private async newerTurns(client: AppServerClient): Promise<void> {
    const newest = await client.call(
      "thread/turns/list",
      { threadId: this.opts.threadId, itemsView: "notLoaded", sortDirection: "desc", limit: 1 },
      turnsPageSchema,
    );
    if (newest.data[0] === undefined || this.sentIds.has(newest.data[0].id)) return;
    const newer: Turn[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < NEWER_TURNS_PAGES; page++) {
      const read = await client.call(
        "thread/turns/list",
        { threadId: this.opts.threadId, itemsView: "full", sortDirection: "desc", limit: this.pageTurns, ...(cursor ? { cursor } : {}) },
        turnsPageSchema,
      );
      const known = read.data.findIndex((t) => t.id === this.lastTurnId);
      newer.push(...(known >= 0 ? read.data.slice(0, known) : read.data));
      cursor = read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined;
      if (known >= 0 || cursor === undefined) {
        if (known < 0) break;
        this.opts.log.info({ sessionId: this.opts.threadId, turns: newer.length }, "turns newer than Codex's history index replayed");
        await this.sendTurns(newer.reverse());
        return;
      }
    }
    this.opts.log.warn({ sessionId: this.opts.threadId }, "Codex's history changed under the replay; paging it again, skipping what was sent");
    await this.pages(client, undefined);
  }

  private async sendTurns(all: Turn[]): Promise<void> {
    if (this.stopped) return;
    const turns = all.filter((t) => !this.sentIds.has(t.id));
    for (const t of turns) this.sentIds.add(t.id);
    const updates = replayTurns(turns, this.opts.replay);
    await Promise.all(updates.map((update) => this.opts.send(update)));
    this.sent.turns += turns.length;
    this.sent.updates += updates.length;
    this.sent.pages += 1;
    const last = turns.at(-1);
    if (last) this.lastTurnId = last.id;
  }
}
