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
import {
  replayEntries,
  turnEntries,
  type HistoryEntry,
  type ReplayOptions,
  type SessionUpdate,
} from "../bridge/index.js";
import type { Logger } from "../log/index.js";

/**
 * Items per `thread/items/list` page. Codex serves one page at a time (each asks for the cursor of
 * the one before), so fewer, larger pages wait on it less; a page of huge command outputs must
 * still die young in the young generation a load widens to 4 MiB (src/startup/young-generation.ts).
 * Measured on a 300 MB load, 5 interleaved runs: 16 items 3.76 s, peak RSS 95 MB; 32 items 3.22 s,
 * 112 MB; 64 items 2.7-3.3 s, 128-141 MB (before the widening: 16 items 3.7 s, 12 3.9 s, 20 3.5 s
 * with RSS +72 MiB).
 */
export const HISTORY_PAGE_ITEMS = 32;
/**
 * What a page of items should weigh, in characters of text: heavy items (long outputs, large diffs)
 * are asked for fewer at a time, so a page stays young garbage in the young generation a load
 * widens to 4 MiB a semi-space (a page of 32 outputs of 220 KB grew it to V8's 16 MiB, given back
 * only ~40 s after the load), and light ones in full pages again.
 */
export const HISTORY_PAGE_TARGET_CHARS = 1_000_000;
/** The fewest items a page is asked for, however heavy (one huge item is that item's weight). */
const MIN_PAGE_ITEMS = 2;
/** The first page, smaller: the first turns reach the client before a full page would (a 300 MB load's first update: 116 ms in pages of 16, 153 in pages of 32). */
export const FIRST_HISTORY_PAGE_ITEMS = 8;
/** A legacy (pre-index) thread is re-read from its rollout for every page: fewer, larger pages of turns (Codex serves at most 100). */
const LEGACY_PAGE_TURNS = 100;
/** Pages of items newer than the index collected before paging the thread again instead. */
const NEWER_ITEMS_PAGES = 4;
/** Characters of those items held at most before paging the thread again instead. */
const NEWER_ITEMS_MAX_CHARS = 4_000_000;

// Items are checked by the replay, one by one (a malformed one costs only itself).
const itemsPageSchema = z.looseObject({
  data: z.array(z.looseObject({ turnId: z.string(), item: z.unknown() })),
  nextCursor: z.string().nullish(),
});

const newestTurnSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.string(), status: z.string() })) });

const turnsPageSchema = z.looseObject({
  data: z.array(z.unknown()),
  nextCursor: z.string().nullish(),
});

/**
 * A stored item with what tells it apart: its turn and its id (Codex keeps item ids unique within
 * a turn only; a tool item's id is the model's call id). Items without an id are never replayed.
 */
type Entry = HistoryEntry & { key: string | undefined };
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
  private lastKey: string | undefined;
  /** Where the first pass stopped before the end (cut short by an error or `stop`). */
  private resumeCursor: string | undefined;
  /** Every item sent, so no catch-up sends one twice. */
  private readonly sentKeys = new Set<string>();
  /**
   * The thread's newest turn: only its commands replay as terminal cards, and while it runs its
   * tools keep their state (the other turns' never finish). Unknown (an error): every turn ended.
   */
  private newestTurn: { id: string; running: boolean } | undefined;
  /** Asked beside the first page a pass reads, and again after the resume if the index lagged. */
  private newestTurnAsked: Promise<void> | undefined;
  /** The newest turn whose items the pages read so far reached (a later turn there means it went stale). */
  private sawNewestOf: string | undefined;
  private stopped = false;
  private firstPass: Promise<void> | undefined;
  private readonly legacy: boolean;
  private readonly pageSize: number;
  private readonly firstPageSize: number;
  /** Items the next page is asked for: `pageSize`, fewer while the items weigh more than HISTORY_PAGE_TARGET_CHARS a page. */
  private nextPageSize: number;

  constructor(private readonly opts: HistoryReplayOptions) {
    this.legacy = opts.historyMode === "legacy";
    this.pageSize = opts.pageSize ?? (this.legacy ? LEGACY_PAGE_TURNS : HISTORY_PAGE_ITEMS);
    // A legacy thread is re-read whole for every page: no page more than it needs.
    // A given page size (tests) is the first page's too.
    this.firstPageSize = opts.pageSize !== undefined || this.legacy ? this.pageSize : FIRST_HISTORY_PAGE_ITEMS;
    this.nextPageSize = this.pageSize;
  }

  /** Starts sending what Codex can serve now (call before thread/resume). */
  start(client: Promise<AppServerClient>): void {
    // Whatever stops this pass (a timeout, an error, no index yet), `finish` picks up after the resume.
    this.firstPass = client
      .then((c) => this.pages(c, undefined))
      .catch((err: unknown) => {
        this.opts.log.debug(
          { sessionId: this.opts.threadId, err: String(err) },
          "history pass before the resume stopped; finished after it",
        );
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
    if (this.lastKey === undefined) {
      // Nothing came before the resume (not indexed yet, an empty thread, an error): all of it now,
      // the newest turn asked again (an index Codex had not built yet knew none).
      this.newestTurnAsked = undefined;
      try {
        await this.pages(client, undefined);
      } catch (err) {
        if (!(err instanceof CodexRpcError) || this.lastKey !== undefined) throw err;
        // Older (legacy) rollouts may not page: read them whole.
        this.opts.log.info(
          { sessionId: this.opts.threadId, err: err.message },
          "paging the history failed; reading the whole thread",
        );
        const read = await client.call(
          "thread/read",
          { threadId: this.opts.threadId, includeTurns: true },
          threadReadResponseSchema,
        );
        await this.sendEntries(withKeys(turnEntries(read.thread.turns ?? [], this.opts.replay)));
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
    if (!this.legacy) this.newestTurnAsked ??= this.findNewestTurn(client);
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
      const read = await client.call(
        "thread/turns/list",
        { threadId: this.opts.threadId, itemsView: "full", sortDirection: "asc", limit: this.pageSize, ...at },
        turnsPageSchema,
      );
      const next = read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined;
      // A last page that is full has a cursor to an empty one: its commands replay as text.
      return { entries: withKeys(turnEntries(read.data, this.opts.replay, next === undefined)), next };
    }
    const limit = cursor === undefined ? Math.min(this.firstPageSize, this.nextPageSize) : this.nextPageSize;
    const read = await client.call(
      "thread/items/list",
      { threadId: this.opts.threadId, sortDirection: "asc", limit, ...at },
      itemsPageSchema,
    );
    this.nextPageSize = pageSizeFor(
      read.data.length,
      textWeight(read.data, HISTORY_PAGE_TARGET_CHARS * 4),
      this.pageSize,
    );
    // The newest turn decides what an entry is: its answer may come after this page's.
    await this.newestTurnAsked;
    if (this.turnAfterNewest(read.data.map((e) => e.turnId))) {
      // Codex's index grew since the newest turn was asked (the resume won the race with this pass
      // on a busy machine): asked again now, after this page, so the answer knows its turns.
      this.newestTurnAsked = this.findNewestTurn(client);
      await this.newestTurnAsked;
      if (read.data.some((e) => e.turnId === this.newestTurn?.id)) this.sawNewestOf = this.newestTurn?.id;
    }
    return {
      entries: read.data.map((e) => this.storedEntry(e)),
      next: read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined,
    };
  }

  /**
   * Whether these turn ids (a page's, oldest first) show a turn after the one known as newest: items
   * are listed in order, so any other turn after the newest one's items is newer. Free when the answer
   * is right; one more request when it went stale.
   */
  private turnAfterNewest(turnIds: readonly string[]): boolean {
    const newest = this.newestTurn?.id;
    if (newest === undefined) return false;
    const from = this.sawNewestOf === newest ? 0 : turnIds.indexOf(newest);
    if (from < 0) return false;
    this.sawNewestOf = newest;
    return turnIds.slice(from).some((t) => t !== newest);
  }

  /** Items come without their turn's status: the newest turn (the one that can still be running) is asked for. */
  private async findNewestTurn(client: AppServerClient): Promise<void> {
    try {
      const turn = (
        await client.call(
          "thread/turns/list",
          { threadId: this.opts.threadId, itemsView: "notLoaded", sortDirection: "desc", limit: 1 },
          newestTurnSchema,
        )
      ).data[0];
      this.newestTurn = turn && { id: turn.id, running: turn.status === "inProgress" };
    } catch {
      this.newestTurn = undefined;
    }
  }

  private storedEntry(entry: z.infer<typeof itemsPageSchema>["data"][number]): Entry {
    const newestTurn = entry.turnId === this.newestTurn?.id;
    return withKey({
      item: entry.item,
      turnId: entry.turnId,
      turnEnded: !(newestTurn && this.newestTurn?.running),
      newestTurn,
    });
  }

  /**
   * Items newer than the last one sent (Codex lists them newest first; they are sent oldest
   * first). A few pages are collected; past that, or when the last item sent is not found (a
   * rewritten history), the thread is paged again from the start, skipping every item sent.
   */
  private async newerItems(client: AppServerClient): Promise<void> {
    const newest = await client.call(
      "thread/items/list",
      { threadId: this.opts.threadId, sortDirection: "desc", limit: 1 },
      itemsPageSchema,
    );
    const top = newest.data[0] && this.storedEntry(newest.data[0]);
    if (top === undefined || (top.key !== undefined && this.sentKeys.has(top.key))) return;
    // Items the index did not have: their turn may be newer than the one found before the resume.
    this.newestTurnAsked = this.findNewestTurn(client);
    await this.newestTurnAsked;
    const newer: Entry[] = [];
    let cursor: string | undefined;
    // Held until the last sent item is found: asked a few at a time, sized by weight as the pages from the start are.
    let limit = this.firstPageSize;
    let held = 0;
    for (let page = 0; page < NEWER_ITEMS_PAGES && held <= NEWER_ITEMS_MAX_CHARS; page++) {
      const read = await client.call(
        "thread/items/list",
        { threadId: this.opts.threadId, sortDirection: "desc", limit, ...(cursor ? { cursor } : {}) },
        itemsPageSchema,
      );
      const weight = textWeight(read.data, HISTORY_PAGE_TARGET_CHARS * 4);
      held += weight;
      limit = pageSizeFor(read.data.length, weight, this.pageSize);
      const entries = read.data.map((e) => this.storedEntry(e));
      const known = entries.findIndex((e) => e.key === this.lastKey);
      newer.push(...(known >= 0 ? entries.slice(0, known) : entries));
      cursor = read.data.length > 0 ? (read.nextCursor ?? undefined) : undefined;
      if (known >= 0 || cursor === undefined) {
        if (known < 0) break;
        this.opts.log.info(
          { sessionId: this.opts.threadId, items: newer.length },
          "items newer than Codex's history index replayed",
        );
        await this.sendEntries(newer.reverse());
        return;
      }
    }
    this.opts.log.warn(
      { sessionId: this.opts.threadId },
      "Codex's history changed under the replay; paging it again, skipping what was sent",
    );
    await this.pages(client, undefined);
  }

  private async sendEntries(all: Entry[]): Promise<void> {
    if (this.stopped) return;
    const entries = all.filter((e) => e.key === undefined || !this.sentKeys.has(e.key));
    for (const e of entries) if (e.key !== undefined) this.sentKeys.add(e.key);
    const updates = replayEntries(entries, this.opts.replay);
    await Promise.all(updates.map((update) => this.opts.send(update)));
    this.sent.items += entries.length;
    this.sent.updates += updates.length;
    this.sent.pages += 1;
    const last = entries.findLast((e) => e.key !== undefined);
    if (last) this.lastKey = last.key;
  }
}

/**
 * Items for the next page, from the last one's count and weight: fewer in proportion when it
 * weighed more than HISTORY_PAGE_TARGET_CHARS, else twice as many, up to `most`. Twice, not `most`
 * at once: a page cut down to a few light items (a user message, a thought) says nothing of the
 * heavy ones that may follow them, and a full page of those was 8 MB.
 */
function pageSizeFor(count: number, weight: number, most: number): number {
  if (count === 0) return most;
  const next =
    weight > HISTORY_PAGE_TARGET_CHARS ? Math.floor((count * HISTORY_PAGE_TARGET_CHARS) / weight) : count * 2;
  return Math.max(MIN_PAGE_ITEMS, Math.min(most, next));
}

/** Characters of text in `value` (its strings, however deep), counted up to `cap`. */
function textWeight(value: unknown, cap: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total < cap) {
    const v = stack.pop();
    if (typeof v === "string") total += v.length;
    else if (typeof v === "object" && v !== null)
      for (const inner of Array.isArray(v) ? v : Object.values(v)) stack.push(inner);
  }
  return total;
}

function withKeys(entries: HistoryEntry[]): Entry[] {
  return entries.map(withKey);
}

function withKey(entry: HistoryEntry): Entry {
  const id = typeof entry.item === "object" && entry.item !== null ? (entry.item as { id?: unknown }).id : undefined;
  return { ...entry, key: typeof id === "string" ? `${entry.turnId}\u0000${id}` : undefined };
}
