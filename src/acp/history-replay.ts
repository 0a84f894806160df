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
import { CodexRpcError, threadSchema, type AppServerClient } from "../codex/index.js";
import { replayTurns, type ReplayOptions, type SessionUpdate } from "../bridge/index.js";
import type { Logger } from "../log/index.js";

/**
 * Turns per `thread/turns/list` page: a page of huge command outputs stays about 1 MB, young
 * enough to die in V8's small young generation (a 300 MB load: 5 turns grow RSS 58 MiB, 20: 75).
 */
export const HISTORY_PAGE_TURNS = 5;
/** A legacy (pre-index) thread is re-read from its rollout for every page: fewer, larger pages (Codex serves at most 100). */
const LEGACY_PAGE_TURNS = 100;

const turnsPageSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string(), status: z.string(), items: z.array(z.unknown()).optional() })),
  nextCursor: z.string().nullish(),
});
const threadReadResponseSchema = z.looseObject({ thread: threadSchema });

type Turn = z.infer<typeof turnsPageSchema>["data"][number];

export type HistoryReplayed = { turns: number; updates: number; pages: number };

export type HistoryReplayOptions = {
  threadId: string;
  /** The stored thread's `historyMode` ("legacy" or "paginated"), when known. */
  historyMode?: unknown;
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
  private wholeReadNeeded = false;
  private stopped = false;
  private firstPass: Promise<void> | undefined;
  private readonly pageTurns: number;

  constructor(private readonly opts: HistoryReplayOptions) {
    this.pageTurns = opts.pageTurns ?? (opts.historyMode === "legacy" ? LEGACY_PAGE_TURNS : HISTORY_PAGE_TURNS);
  }

  /** Starts sending what Codex can serve now (call before thread/resume). */
  start(client: Promise<AppServerClient>): void {
    this.firstPass = client.then((c) => this.pages(c, undefined)).catch((err: unknown) => {
      if (err instanceof CodexRpcError && this.sent.pages === 0) {
        // Older (legacy) rollouts may not page: read them whole, after the resume.
        this.opts.log.info({ sessionId: this.opts.threadId, err: err.message }, "thread/turns/list failed; the thread will be read whole");
        this.wholeReadNeeded = true;
        return;
      }
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
    if (this.wholeReadNeeded) {
      const read = await client.call("thread/read", { threadId: this.opts.threadId, includeTurns: true }, threadReadResponseSchema);
      await this.sendTurns(read.thread.turns ?? []);
      return this.sent;
    }
    if (this.lastTurnId === undefined) {
      // Nothing came before the resume (not indexed yet, or an empty thread): all of it now.
      await this.pages(client, undefined);
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

  /** Turns newer than the last one sent (newest first from Codex, sent oldest first). */
  private async newerTurns(client: AppServerClient): Promise<void> {
    const newer: Turn[] = [];
    let cursor: string | undefined;
    let itemsView: "notLoaded" | "full" = "notLoaded";
    for (;;) {
      const read = await client.call(
        "thread/turns/list",
        // The first question is only "which turn is newest?": no items.
        { threadId: this.opts.threadId, itemsView, sortDirection: "desc", limit: itemsView === "notLoaded" ? 1 : this.pageTurns, ...(cursor ? { cursor } : {}) },
        turnsPageSchema,
      );
      if (itemsView === "notLoaded") {
        if (read.data[0] === undefined || read.data[0].id === this.lastTurnId) return;
        itemsView = "full";
        continue;
      }
      const known = read.data.findIndex((t) => t.id === this.lastTurnId);
      newer.push(...(known >= 0 ? read.data.slice(0, known) : read.data));
      cursor = read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined;
      if (known >= 0 || cursor === undefined) break;
    }
    this.opts.log.info({ sessionId: this.opts.threadId, turns: newer.length }, "turns newer than Codex's history index replayed");
    await this.sendTurns(newer.reverse());
  }

  private async sendTurns(turns: Turn[]): Promise<void> {
    if (this.stopped) return;
    const updates = replayTurns(turns, this.opts.replay);
    await Promise.all(updates.map((update) => this.opts.send(update)));
    this.sent.turns += turns.length;
    this.sent.updates += updates.length;
    this.sent.pages += 1;
    const last = turns.at(-1);
    if (last) this.lastTurnId = last.id;
  }
}
