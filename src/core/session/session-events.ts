// What a session tells: the features that listen to it, its events (AcpSession.on) and its changes
// of mode and settings (SessionState, AcpSession.onChange); and the client, each of its thread's
// Codex events translated into updates, sent in order (SessionStream).
import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { ThreadEventTranslator, type ClientDisplay, type Item, type SessionUpdate } from "../../bridge/index.js";
import type { CodexNotification, v2 } from "../../codex/index.js";
import type { SessionMode } from "../../editor-files/access/index.js";
import type { Logger } from "../../log/index.js";
import { ChildItems } from "./child-items.js";
import { diskFiles } from "./disk-files.js";
import { UpdateOutbox } from "./outbox.js";
import type { ThreadSettings } from "./thread-config.js";
import { withEnding, type ToolCallEnding } from "./tool-call-endings.js";
import type { TurnRunnerHost } from "./turn-runner.js";
import type { ThreadTurns } from "./turns.js";
import { addUsageMeta } from "./usage-meta.js";

/** A session's mode: a preset (whose id is also the file tools' write rule), or "custom" (its thread's own policy, core/session/modes.ts). */
export type ModeId = SessionMode | "custom";

export type SessionChange = { type: "mode"; mode: ModeId } | { type: "settings"; settings: Readonly<ThreadSettings> };

/** A change a feature makes to a session (AcpSession.update): its mode, settings (from the next turn) and/or workspace roots. */
export type StateChange = { mode?: ModeId; settings?: Partial<ThreadSettings>; roots?: readonly string[] };

/** The session's events a feature can listen to (AcpSession.on). */
export type SessionEvents = {
  notification: (n: CodexNotification) => void;
  cancel: () => void;
  beforeTurn: () => Promise<void>;
  sizes: () => Record<string, number>;
  /** `_meta` entries a feature adds to the session's `usage_update`s (asked once per token-usage update). */
  usageMeta: () => Record<string, unknown> | undefined;
  toolCallEnding: ToolCallEnding; // content a feature adds to a tool call's last update (tool-call-endings.ts)
};

/**
 * What features share of a session and change (its settings, mode and workspace roots), with the
 * listeners of those changes; one that throws costs itself only (`onError` hears of it).
 */
export class SessionState {
  private currentMode: ModeId = "auto";
  private workspaceRoots: readonly string[];
  private readonly listeners = new Set<(change: SessionChange) => void>();

  constructor(
    readonly settings: ThreadSettings,
    private readonly onError: (err: unknown) => void,
  ) {
    this.workspaceRoots = [settings.cwd];
  }

  get mode(): ModeId {
    return this.currentMode;
  }

  get roots(): readonly string[] {
    return this.workspaceRoots;
  }

  /** Changes the mode, settings and/or roots and tells the listeners what changed. */
  update(change: StateChange): void {
    const modeChanged = change.mode !== undefined && change.mode !== this.currentMode;
    if (change.mode !== undefined) this.currentMode = change.mode;
    if (change.roots) this.workspaceRoots = [...change.roots];
    if (change.settings) Object.assign(this.settings, change.settings);
    if (modeChanged) this.emit({ type: "mode", mode: this.currentMode });
    if (change.settings) this.emit({ type: "settings", settings: this.settings });
  }

  /** Returns the unsubscribe. */
  onChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private emit(change: SessionChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** The listeners of a session's events (AcpSession.on); all dropped at once when the session closes. */
export class EventListeners {
  readonly sets: { readonly [E in keyof SessionEvents]: Set<SessionEvents[E]> } = {
    notification: new Set(),
    cancel: new Set(),
    beforeTurn: new Set(),
    sizes: new Set(),
    usageMeta: new Set(),
    toolCallEnding: new Set(),
  };
  /** The notification listeners, copied when they change, not per event: one joining or leaving meanwhile does so from the next event. */
  private notificationCopy: ReadonlyArray<SessionEvents["notification"]> | undefined;

  /** Returns the unsubscribe. */
  on<E extends keyof SessionEvents>(event: E, listener: SessionEvents[E]): () => void {
    const set: Set<SessionEvents[E]> = this.sets[event];
    set.add(listener);
    this.notificationCopy = undefined;
    return () => {
      set.delete(listener);
      this.notificationCopy = undefined;
    };
  }

  /** Tells every notification listener; one that throws costs itself only (`onError` hears of it). */
  notify(n: CodexNotification, onError: (err: unknown) => void): void {
    this.notificationCopy ??= [...this.sets.notification];
    for (const listener of this.notificationCopy) {
      try {
        listener(n);
      } catch (err) {
        onError(err);
      }
    }
  }

  /** The prompt was cancelled or its codex died: every `cancel` listener withdraws what waits on the user. */
  cancel(): void {
    for (const hook of [...this.sets.cancel]) hook();
  }

  clear(): void {
    for (const set of Object.values(this.sets)) set.clear();
    this.notificationCopy = undefined;
  }
}

export type StreamDeps = {
  sessionId: string;
  log: Logger;
  cwd(): string;
  /** What the client can show (terminal cards, notices, compactions, plan documents). */
  display(): ClientDisplay;
  /** Sends one `session/update` to the client; resolves when written. */
  deliver(update: SessionUpdate): Promise<void>;
  /** Set while the session's updates must wait (its stored history is still being written). */
  hold(): Promise<void> | undefined;
  /** Which Codex turn an event belongs to (the turn runner's). */
  turns(): ThreadTurns;
};

/**
 * A session's thread events on their way: each one tracked (the items in flight, the token
 * totals), told to the features, translated into updates and sent to the client in order.
 */
export class SessionStream {
  /** The thread's items that started and have not completed yet, by id (one tracker for every feature). */
  readonly items = new Map<string, Item>();
  /** The same for subagents' threads (subagents.ts), with the subagent's title: the client never saw these items. */
  readonly childItems = new ChildItems();
  /** What features listen to (AcpSession.on). */
  readonly listeners = new EventListeners();
  /** Codex's latest token totals for this thread. */
  tokenTotals: v2.TokenUsageBreakdown | undefined;
  readonly translator: ThreadEventTranslator;
  private readonly outbox: UpdateOutbox<SessionUpdate>;

  constructor(private readonly deps: StreamDeps) {
    this.translator = new ThreadEventTranslator({
      cwd: () => deps.cwd(),
      files: diskFiles,
      display: () => deps.display(),
      onUnknown: (what) =>
        deps.log.info(
          { sessionId: deps.sessionId, what },
          "codex sent something this version does not know; not shown",
        ),
    });
    this.outbox = new UpdateOutbox({
      deliver: (update) => deps.deliver(update),
      hold: () => deps.hold(),
      onFailure: (err) =>
        deps.log.warn({ err: String(err), sessionId: deps.sessionId }, "could not send a session update"),
    });
  }

  /** Sends an update in order with every other update of this session. */
  send(update: SessionUpdate): Promise<void> {
    return this.outbox.send(update);
  }

  /** Waits until every update sent so far is with the connection (what it sends next follows them). */
  flush(): Promise<void> {
    return this.outbox.flush();
  }

  /** `updates` with `ended`'s last one made once what features add to it is known (tool-call-endings.ts); subagents' cards too. */
  withEndings(
    updates: SessionUpdate[],
    ended: Item | undefined,
    shown: ToolCallContent[] | undefined,
  ): Array<SessionUpdate | Promise<SessionUpdate>> {
    return withEnding(updates, ended, this.listeners.sets.toolCallEnding, shown, (err) =>
      this.deps.log.warn({ sessionId: this.deps.sessionId, err: String(err) }, "a tool call's ending failed"),
    );
  }

  /** Ends the compactions the client was shown as running, as `status` (their turn ended unannounced). */
  endCompactions(status: "interrupted" | "failed"): void {
    for (const update of this.translator.unfinishedCompactions(status)) void this.send(update).catch(() => undefined);
  }

  /** The codex child died: what it had running is gone (its compactions failed, its items and subagents' items forgotten). */
  childExited(): void {
    this.endCompactions("failed");
    this.items.clear();
    this.childItems.clear();
  }

  /** How much each tracker holds, the session's `others` and the features' included (for the soak: they must stay flat). */
  sizes(others: Record<string, number>): Record<string, number> {
    const { notification, cancel, sizes } = this.listeners.sets;
    const own = {
      items: this.items.size,
      childItems: this.childItems.size,
      ...others,
      threadListeners: notification.size,
      cancelHooks: cancel.size,
    };
    return Object.assign(own, ...[...sizes].map((report) => report())) as Record<string, number>;
  }

  /** The turn runner's hooks that are the stream's (turn-runner.ts); `trackers` for the debug line at a turn's end. */
  turnHooks(
    trackers: () => Record<string, number>,
  ): Pick<TurnRunnerHost, "turnCancelled" | "turnGivenUp" | "turnEnded" | "tokenTotals" | "openItems" | "flush"> {
    return {
      turnCancelled: () => this.listeners.cancel(),
      turnGivenUp: () => this.endCompactions("interrupted"),
      turnEnded: () => {
        // Items the turn left open (given up, or its child died) are not the next turn's running calls.
        this.items.clear();
        if (this.deps.log.isLevelEnabled("debug"))
          this.deps.log.debug({ sessionId: this.deps.sessionId, trackers: trackers() }, "turn ended");
      },
      tokenTotals: () => this.tokenTotals,
      openItems: () => this.items.values(),
      flush: () => this.flush(),
    };
  }

  /** One of the thread's events. */
  receive(n: CodexNotification): void {
    const turns = this.deps.turns();
    if (!turns.admits(n)) return;
    if (n.method === "item/started") this.items.set(n.params.item.id, n.params.item);
    if (n.method === "thread/tokenUsage/updated") this.tokenTotals = n.params.tokenUsage.total;
    // A feature's bug costs that feature only: the client still gets this event.
    this.listeners.notify(n, (err) =>
      this.deps.log.warn(
        { sessionId: this.deps.sessionId, method: n.method, err: err instanceof Error ? err.message : String(err) },
        "a session listener failed",
      ),
    );
    if (n.method === "item/completed") this.items.delete(n.params.item.id);
    const turn = turns.active;
    if (n.method === "turn/started") turns.started(n);
    if (n.method === "error" && turn && !n.params.willRetry) {
      turn.lastError = n.params.error;
      turns.failedBeforeStart(n.params.turnId, n.params.error);
    }
    const updates = this.translator.translate(n);
    const { usageMeta } = this.listeners.sets;
    if (n.method === "thread/tokenUsage/updated" && usageMeta.size > 0)
      addUsageMeta(updates, usageMeta, (err) =>
        this.deps.log.warn({ sessionId: this.deps.sessionId, err }, "a usage_update _meta listener failed"),
      );
    const ended = n.method === "item/completed" ? n.params.item : undefined;
    // A failed send is the outbox's to report (the client is gone); nothing here waits on it.
    for (const update of this.withEndings(updates, ended, ended && this.translator.viewOf(ended.id)?.content))
      void this.outbox.send(update);
    if (n.method === "turn/completed") turns.completed(n.params);
  }
}
