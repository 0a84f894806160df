// session/load's history, streamed: Codex's stored items are read a page at a time
// (`thread/items/list`, oldest first) and each page's updates are written to the client before
// the page after next is asked for. Memory stays at about two pages whatever the stored session
// weighs (sessions of hundreds of MB exist), and reading the next page overlaps writing this one.
// Items, not turns: Codex serves the same history by items in about 60% of the time (a 300 MB
// session: 2.4 s in pages of 20 items against 3.8 s in pages of 5 turns, the same bytes per page).
//
// The pages are read while Codex resumes the thread (`start`, before thread/resume): resuming a
// 300 MB session takes Codex over a second, and its history index answers meanwhile, so the
// client sees the first turns at once. After the resume, `finish` reads what that pass could not
// have seen: everything, when Codex had not indexed the thread yet (it answers "no items" until
// its first resume); the rest, when the pass was cut short; and any item newer than the last one
// sent (the index can lag a rollout another Codex version appended to).
import { z } from "zod";
import { CodexRpcError, threadReadResponseSchema, type AppServerClient, type v2 } from "../codex/index.js";
import { replayEntries, turnEntries, type HistoryEntry, type ReplayOptions, type SessionUpdate } from "../bridge/index.js";
import type { Logger } from "../log/index.js";

/**
 * Items per `thread/items/list` page: a page of huge command outputs stays about 1 MB, young
 * enough to die in V8's small young generation. Measured on a 300 MB load (npm run bench):
 * 12 items 3.9 s and RSS +61 MiB, 16 items 3.7 s and +62-63 MiB, 20 items 3.5 s and +72 MiB.
 */
export const HISTORY_PAGE_ITEMS = 16;
/** A legacy (pre-index) thread is re-read from its rollout for every page: fewer, larger pages of turns (Codex serves at most 100). */
const LEGACY_PAGE_TURNS = 100;
/** Pages of items newer than the index collected before paging the thread again instead. */
const NEWER_ITEMS_PAGES = 4;

const itemsPageSchema = z.looseObject({
  data: z.array(z.looseObject({ turnId: z.string(), item: z.looseObject({ id: z.string() }) })),
  nextCursor: z.string().nullish(),
});

const turnsPageSchema = z.looseObject({
  data: z.array(z.unknown()),
  nextCursor: z.string().nullish(),
});

/** A stored item with its id (what the replay counts and never sends twice). */
type Entry = HistoryEntry & { id: string | undefined };
type Page = { entries: Entry[]; next: string | undefined };

export type HistoryReplayed = { items: number; updates: number; pages: number };

export type HistoryReplayOptions = {
  threadId: string;
  /** The stored thread's history mode, when known (a legacy thread is re-read per page). */
  historyMode?: v2.ThreadHistoryMode;
  /** Writes one update to the client; resolves once it is on its way. */
  send: (update: SessionUpdate) => Promise<void>;
  replay: ReplayOptions;
  log: Logger;
  /** Items per page (turns per page for a legacy thread). */
  pageSize?: number;
};

export class HistoryReplay {
  readonly sent: HistoryReplayed = { items: 0, updates: 0, pages: 0 };
  private lastItemId: string | undefined;
  /** Where the first pass stopped before the end (cut short by an error or `stop`). */
  private resumeCursor: string | undefined;
  /** Every item sent, so no catch-up sends one twice. */
  private readonly sentIds = new Set<string>();
  private stopped = false;
  private firstPass: Promise<void> | undefined;
  private readonly legacy: boolean;
  private readonly pageSize: number;

  constructor(private readonly opts: HistoryReplayOptions) {
    this.legacy = opts.historyMode === "legacy";
    this.pageSize = opts.pageSize ?? (this.legacy ? LEGACY_PAGE_TURNS : HISTORY_PAGE_ITEMS);
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
    if (this.lastItemId === undefined) {
      // Nothing came before the resume (not indexed yet, an empty thread, an error): all of it now.
      try {
        await this.pages(client, undefined);
      } catch (err) {
        if (!(err instanceof CodexRpcError) || this.lastItemId !== undefined) throw err;
        // Older (legacy) rollouts may not page: read them whole.
        this.opts.log.info({ sessionId: this.opts.threadId, err: err.message }, "paging the history failed; reading the whole thread");
        const read = await client.call("thread/read", { threadId: this.opts.threadId, includeTurns: true }, threadReadResponseSchema);
        await this.sendEntries(withIds(turnEntries(read.thread.turns ?? [], this.opts.replay)));
      }
      return this.sent;
    }
    if (this.resumeCursor !== undefined) await this.pages(client, this.resumeCursor);
    // A legacy thread is read from its rollout on every page: never behind it.
    if (!this.legacy) await this.newerItems(client);
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
      await this.sendEntries(current.entries);
      if (!next || this.stopped) return;
      current = await next;
    }
  }

  private async page(client: AppServerClient, cursor: string | undefined): Promise<Page> {
    const at = cursor ? { cursor } : {};
    if (this.legacy) {
      const read = await client.call("thread/turns/list", { threadId: this.opts.threadId, itemsView: "full", sortDirection: "asc", limit: this.pageSize, ...at }, turnsPageSchema);
      return { entries: withIds(turnEntries(read.data, this.opts.replay)), next: read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined };
    }
    const read = await client.call("thread/items/list", { threadId: this.opts.threadId, sortDirection: "asc", limit: this.pageSize, ...at }, itemsPageSchema);
    return { entries: read.data.map(storedEntry), next: read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined };
  }

  /**
   * Items newer than the last one sent (Codex lists them newest first; they are sent oldest
   * first). A few pages are collected; past that, or when the last item sent is not found (a
   * rewritten history), the thread is paged again from the start, skipping every item sent.
   */
  private async newerItems(client: AppServerClient): Promise<void> {
    const newest = await client.call("thread/items/list", { threadId: this.opts.threadId, sortDirection: "desc", limit: 1 }, itemsPageSchema);
    if (newest.data[0] === undefined || this.sentIds.has(newest.data[0].item.id)) return;
    const newer: Entry[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < NEWER_ITEMS_PAGES; page++) {
      const read = await client.call(
        "thread/items/list",
        { threadId: this.opts.threadId, sortDirection: "desc", limit: this.pageSize, ...(cursor ? { cursor } : {}) },
        itemsPageSchema,
      );
      const known = read.data.findIndex((e) => e.item.id === this.lastItemId);
      newer.push(...(known >= 0 ? read.data.slice(0, known) : read.data).map(storedEntry));
      cursor = read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined;
      if (known >= 0 || cursor === undefined) {
        if (known < 0) break;
        this.opts.log.info({ sessionId: this.opts.threadId, items: newer.length }, "items newer than Codex's history index replayed");
        await this.sendEntries(newer.reverse());
        return;
      }
    }
    this.opts.log.warn({ sessionId: this.opts.threadId }, "Codex's history changed under the replay; paging it again, skipping what was sent");
    await this.pages(client, undefined);
  }

  private async sendEntries(all: Entry[]): Promise<void> {
    if (this.stopped) return;
    const entries = all.filter((e) => e.id === undefined || !this.sentIds.has(e.id));
    for (const e of entries) if (e.id !== undefined) this.sentIds.add(e.id);
    const updates = replayEntries(entries, this.opts.replay);
    await Promise.all(updates.map((update) => this.opts.send(update)));
    this.sent.items += entries.length;
    this.sent.updates += updates.length;
    this.sent.pages += 1;
    const last = entries.findLast((e) => e.id !== undefined);
    if (last) this.lastItemId = last.id;
  }
}

/** An entry of `thread/items/list`: the session being loaded runs none of its turns here. */
function storedEntry(entry: z.infer<typeof itemsPageSchema>["data"][number]): Entry {
  return { item: entry.item, turnEnded: true, id: entry.item.id };
}

function withIds(entries: HistoryEntry[]): Entry[] {
  return entries.map((e) => ({ ...e, id: idOf(e.item) }));
}

function idOf(item: unknown): string | undefined {
  const id = typeof item === "object" && item !== null ? (item as { id?: unknown }).id : undefined;
  return typeof id === "string" ? id : undefined;
}
