// One ACP session = one Codex thread. Streams the thread's events to the client in order, keeps
// what features share of it (items in flight, settings, mode, roots), and re-attaches the thread
// to a new app-server child when the previous one died (Codex keeps the rollout on disk and
// `thread/resume` reloads it; a thread never prompted is replaced: session-threads.ts). Prompts run
// as turns through turn-runner.ts; turns.ts owns events.
import type { PromptResponse, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { childDiedMessage, internalError, invalidRequest } from "../errors.js";
import type { AppServerClient, CodexHost, CodexNotification, CodexServerRequest, UserInput, v2 } from "../../codex/index.js";
import { ThreadEventTranslator, type ClientDisplay, type Item, type SessionUpdate } from "../../bridge/index.js";
import { diskFiles } from "./disk-files.js";
import type { Logger } from "../../log/index.js";
import { markPhase } from "../../log/timings.js";
import { collaborationParams, keptTurnParams, type KeptTurnParams, type ThreadSettings } from "./thread-config.js";
import { reattachThread, startThreadAnew, type SessionThreads } from "./session-threads.js";
import type { ThreadTurns } from "./turns.js";
import { TurnRunner } from "./turn-runner.js";
import { ChildItems } from "./child-items.js";
import { UpdateOutbox } from "./outbox.js";
import { addUsageMeta } from "./usage-meta.js";
import { withEnding } from "./tool-call-endings.js";
import { ChangeListeners, type ModeId, type SessionChange, type SessionEvents } from "./session-events.js";

export type { ThreadSettings, ModeId, SessionChange, SessionEvents };

export type SessionDeps = {
  host: CodexHost;
  log: Logger;
  /** Sends one `session/update` to the client; resolves when written. */
  sendUpdate(sessionId: string, update: SessionUpdate): Promise<void>;
  /** Set while this session's updates must wait (its stored history is still being written). */
  updatesHold?(sessionId: string): Promise<void> | undefined;
  /** What the client can show (terminal cards, notices, compactions, plan documents). */
  display(): ClientDisplay;
  /** Answers codex's server->client requests for this session (approvals, elicitations). */
  answerServerRequest(session: AcpSession, request: CodexServerRequest, withdrawn: AbortSignal): Promise<unknown>;
  /** Which thread each session runs on, where it is not the session's own (kept across agents). */
  threads?: SessionThreads;
};

export class AcpSession {
  private readonly translator = new ThreadEventTranslator({
    cwd: () => this.settings.cwd,
    files: diskFiles,
    display: () => this.deps.display(),
    onUnknown: (what) => this.deps.log.info({ sessionId: this.id, what }, "codex sent something this version does not know; not shown"),
  });
  private readonly runner: TurnRunner;
  private readonly turns: ThreadTurns; // the runner's: which Codex turn an event belongs to
  private readonly turnContext = new Map<string, string>();
  /** Codex's latest token totals for this thread. */
  private tokenTotals: v2.TokenUsageBreakdown | undefined;
  private readonly outbox: UpdateOutbox<SessionUpdate>;
  private attachedGeneration = 0;
  /** The kept turn settings (thread-config.ts) the bound codex child last got; unset when bound anew. */
  private keptSent: KeptTurnParams | undefined;
  private detach: (() => void) | undefined;
  private boundClient: AppServerClient | undefined;
  /** Subagent threads routed to this session, with their unsubscribe. */
  private readonly adopted = new Map<string, () => void>();
  private closed = false;
  /** The thread's items that started and have not completed yet, by id (one tracker for every feature). */
  readonly items = new Map<string, Item>();
  /** The same for subagents' threads (subagents.ts), with the subagent's title: the client never saw these items. */
  readonly childItems = new ChildItems();
  /** What features listen to (on()); all dropped when the session closes. */
  private readonly listeners: { [E in keyof SessionEvents]: Set<SessionEvents[E]> } = { notification: new Set(), cancel: new Set(), beforeTurn: new Set(), sizes: new Set(), usageMeta: new Set(), toolCallEnding: new Set() };
  private notificationListeners: ReadonlyArray<SessionEvents["notification"]> | undefined;
  private currentMode: ModeId = "auto";
  private readonly changeListeners = new ChangeListeners((err) => this.deps.log.error({ sessionId: this.id, err: String(err) }, "a session change listener failed"));
  private workspaceRoots: readonly string[];
  /** The Codex thread the session runs on: its own id, unless Codex could not bring that back (session-threads.ts). */
  private currentThread: string;
  /** Codex has the thread on disk (resumed, forked, or a turn started): it is never replaced. */
  private keptByCodex = true;

  constructor(
    /** The ACP session id, the same for the client and every feature whichever thread the session runs on. */
    readonly id: string,
    private readonly threadSettings: ThreadSettings,
    private readonly deps: SessionDeps,
    threadId: string = id,
  ) {
    this.currentThread = threadId;
    this.workspaceRoots = [threadSettings.cwd];
    this.outbox = new UpdateOutbox({
      deliver: (update) => this.deps.sendUpdate(this.id, update),
      hold: () => this.deps.updatesHold?.(this.id),
      onFailure: (err) => this.deps.log.warn({ err: String(err), sessionId: this.id }, "could not send a session update"),
    });
    this.runner = new TurnRunner({
      id: this.id,
      threadId: () => this.currentThread,
      isClosed: () => this.closed,
      log: this.deps.log,
      attach: () => this.ensureAttached(),
      client: () => this.deps.host.client(),
      turnStarting: (what) => {
        // Another kind of turn (a review, a compaction) may leave Codex's kept settings changed.
        if (what !== "turn/start") this.keptSent = undefined;
        this.translator.reset();
      },
      turnCancelled: () => this.emitCancel(),
      turnGivenUp: () => {
        for (const update of this.translator.unfinishedCompactions("interrupted")) void this.send(update).catch(() => undefined);
      },
      turnEnded: () => {
        // Items the turn left open (given up, or its child died) are not the next turn's running calls.
        this.items.clear();
        if (this.deps.log.isLevelEnabled("debug")) this.deps.log.debug({ sessionId: this.id, trackers: this.trackerSizes() }, "turn ended");
      },
      tokenTotals: () => this.tokenTotals,
      openItems: () => this.items.values(),
      flush: () => this.flush(),
    });
    this.turns = this.runner.turns;
  }

  /** What thread/start, thread/resume and turn/start are built from; change it with update(). */
  get settings(): Readonly<ThreadSettings> {
    return this.threadSettings;
  }

  /** The id of the Codex thread the session runs on now: what a request to Codex about this session names. */
  get threadId(): string {
    return this.currentThread;
  }

  /** The session's mode (`read-only` | `auto` | `full-access`): Codex's policy and the file tools' write rule. */
  get mode(): ModeId {
    return this.currentMode;
  }

  /** Workspace roots: writes inside them need no prompt in `auto`. */
  get roots(): readonly string[] {
    return this.workspaceRoots;
  }

  /** Changes the mode and/or settings (from the next turn) and tells the listeners what changed. */
  update(change: { mode?: ModeId; settings?: Partial<ThreadSettings>; roots?: readonly string[] }): void {
    const modeChanged = change.mode !== undefined && change.mode !== this.currentMode;
    if (change.mode !== undefined) this.currentMode = change.mode;
    if (change.roots) this.workspaceRoots = [...change.roots];
    if (change.settings) Object.assign(this.threadSettings, change.settings);
    if (modeChanged) this.changeListeners.emit({ type: "mode", mode: this.currentMode });
    if (change.settings) this.changeListeners.emit({ type: "settings", settings: this.threadSettings });
  }

  /** Listens to the session's changes; returns the unsubscribe. */
  onChange(listener: (change: SessionChange) => void): () => void {
    return this.changeListeners.add(listener);
  }

  get cwd(): string {
    return this.threadSettings.cwd;
  }

  /** Starts the thread anew with `settings` while Codex keeps nothing of it (never prompted): what only thread/start takes applies. Undefined (nothing done) once Codex keeps it: a turn ran or is running. */
  async startAnew(settings: ThreadSettings): Promise<v2.ThreadStartResponse | undefined> {
    if (this.keptByCodex || this.promptRunning) return undefined;
    const client = await this.ensureAttached();
    const started = await startThreadAnew(client, { id: this.id, threadId: this.currentThread, settings, keptByCodex: false }, this.deps.threads, this.deps.log);
    this.currentThread = started.thread.id;
    this.bind(client, this.deps.host.currentGeneration);
    return started;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get promptRunning(): boolean {
    return this.turns.active !== undefined;
  }

  /** Codex's id of the running turn, once known (steering needs it). */
  get runningTurnId(): string | undefined {
    return this.turns.active?.turnId;
  }

  /** Starts routing this thread's events from `client` (the child it was started or resumed on). */
  bind(client: AppServerClient, generation: number, early: readonly CodexNotification[] = []): void {
    this.detach?.();
    const own = client.attachThread(this.currentThread, {
      notification: (n) => this.onNotification(n),
      request: (request, withdrawn) => this.deps.answerServerRequest(this, request, withdrawn),
    });
    this.boundClient = client;
    this.keptSent = undefined;
    this.detach = () => {
      own();
      for (const off of this.adopted.values()) off();
      this.adopted.clear();
      this.boundClient = undefined;
    };
    this.attachedGeneration = generation;
    for (const n of early) this.onNotification(n); // said while the thread resumed (open-thread.ts)
  }

  /** Routes a thread this session's turns spawned (a subagent) to `listener`, and answers its requests (approvals, questions) as this session's, where they would otherwise be refused as unknown; until the session closes or moves to another codex child. */
  adoptThread(threadId: string, listener: (n: CodexNotification) => void): void {
    if (!this.boundClient || this.adopted.has(threadId) || threadId === this.currentThread) return;
    this.adopted.set(threadId, this.boundClient.attachThread(threadId, { notification: listener, request: (request, withdrawn) => this.deps.answerServerRequest(this, request, withdrawn) }));
  }

  /** Stops routing a subagent's thread here (it is idle and let go; a later message adopts it again). */
  releaseThread(threadId: string): void {
    this.adopted.get(threadId)?.();
    this.adopted.delete(threadId);
  }

  /** How much each of this session's trackers holds, features' included (for the soak: they must stay flat). */
  trackerSizes(): Record<string, number> {
    const own = {
      items: this.items.size,
      childItems: this.childItems.size,
      adoptedThreads: this.adopted.size,
      queuedPrompts: this.runner.queuedCount,
      turnContext: this.turnContext.size,
      threadListeners: this.listeners.notification.size,
      cancelHooks: this.listeners.cancel.size,
      ...this.turns.sizes,
    };
    return Object.assign(own, ...[...this.listeners.sizes].map((report) => report())) as Record<string, number>;
  }

  /** `updates` with `ended`'s last one made once what features add to it is known (tool-call-endings.ts); subagents' cards too. */
  withEndings(updates: SessionUpdate[], ended: Item | undefined, shown: ToolCallContent[] | undefined): Array<SessionUpdate | Promise<SessionUpdate>> {
    return withEnding(updates, ended, this.listeners.toolCallEnding, shown, (err) => this.deps.log.warn({ sessionId: this.id, err: String(err) }, "a tool call's ending failed"));
  }

  /** Sends an update in order with every other update of this session. */
  send(update: SessionUpdate): Promise<void> {
    return this.outbox.send(update);
  }

  /** Waits until every update sent so far is with the connection (what it sends next follows them). */
  flush(): Promise<void> {
    return this.outbox.flush();
  }

  /** True once the running turn was cancelled or the session closed: ask the user nothing more for it. */
  get cancelling(): boolean {
    return this.closed || this.turns.active?.cancelRequested === true;
  }

  /** Context the model gets with the next prompt only (e.g. an MCP server that failed to start), by source. */
  addTurnContext(source: string, value: string): void {
    this.turnContext.set(source, value);
  }

  prompt(input: UserInput[]): Promise<PromptResponse> {
    return this.runTurn("turn/start", async (client) => {
      // Taken when the turn really starts (not while queued), and dropped only once it has.
      await Promise.all([...this.listeners.beforeTurn].map((prepare) => prepare().catch(() => undefined)));
      const context = [...this.turnContext];
      const kept = keptTurnParams(this.settings, this.keptSent);
      const unchanged = this.keptSent !== undefined && JSON.stringify(kept) === JSON.stringify(this.keptSent);
      markPhase(this.deps.log, "prompt: turn/start sent");
      const started = await client.call("turn/start", {
        threadId: this.currentThread,
        input,
        ...(context.length > 0 ? { additionalContext: Object.fromEntries(context.map(([source, value]) => [source, { value, kind: "application" as const }])) } : {}),
        ...(unchanged ? {} : kept),
        ...collaborationParams(this.settings),
      });
      markPhase(this.deps.log, "prompt: turn/start answered");
      if (client === this.boundClient) this.keptSent = kept; // not if bound anew meanwhile
      for (const [source] of context) this.turnContext.delete(source);
      return started;
    });
  }

  /** Codex's review of the thread (/review). review/start carries no settings, so the mode, model and effort chosen since the last turn reach Codex first (thread/settings/update): else the review's commands would run in the previous mode's sandbox. */
  review(target: v2.ReviewTarget): Promise<PromptResponse> {
    return this.runTurn("review/start", async (client) => {
      await client.call("thread/settings/update", { threadId: this.currentThread, ...keptTurnParams(this.settings) });
      return client.call("review/start", { threadId: this.currentThread, target, delivery: "inline" });
    });
  }

  /** A thread that starts now (not a fork): it has used no tokens (its first turn's usage is all of its totals), and Codex keeps nothing of it until a turn starts. */
  startedEmpty(): void {
    this.tokenTotals ??= { totalTokens: 0, inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 };
    this.keptByCodex = false;
  }

  /** Runs one Codex turn started by `start` (turn/start, review/start, thread/compact/start, thread/goal/set) until it ends, or none if it returns NO_TURN (turn-runner.ts). */
  runTurn(what: string, start: (client: AppServerClient) => Promise<unknown>): Promise<PromptResponse> {
    return this.runner.run(what, async (client) => {
      const started = await start(client);
      this.keptByCodex = true; // Codex wrote the thread's rollout as the turn started
      return started;
    });
  }

  /** Answers a prompt here, with no Codex turn, in its place among the session's prompts (turn-runner.ts). */
  runLocal(action: () => Promise<PromptResponse>): Promise<PromptResponse> {
    return this.runner.runLocal(action);
  }

  /** Cancels the running prompt and every queued one. */
  cancel(): Promise<void> {
    return this.runner.cancel();
  }

  /** Fails the running prompt because the child died; the next prompt resumes the thread. */
  childExited(generation: number, reason: string): void {
    if (generation !== this.attachedGeneration) return;
    this.detach?.();
    this.detach = undefined;
    this.turns.forgetCodexTurns();
    // Questions pending for the dead child can no longer be answered: withdraw them.
    if (this.turns.active) this.emitCancel();
    for (const update of this.translator.unfinishedCompactions("failed")) void this.send(update).catch(() => undefined);
    this.turns.active?.settle(internalError(childDiedMessage(reason)));
    this.items.clear();
    this.childItems.clear();
  }

  close(): void {
    this.closed = true;
    void this.cancel();
    this.detach?.();
    this.detach = undefined;
    this.childItems.clear();
    // Disposal is the session's: no feature can leave a listener behind.
    for (const set of Object.values(this.listeners)) set.clear();
    this.notificationListeners = undefined;
    this.changeListeners.clear();
  }

  /**
   * Listens to one of the session's events: `notification` (each of the thread's Codex events),
   * `cancel` (the prompt was cancelled or its codex died: withdraw what waits on the user),
   * `beforeTurn` (awaited as a prompt's turn starts), `sizes` (a feature's trackers, for the soak), `usageMeta` (`_meta` entries for usage_update).
   * Returns the unsubscribe; every listener goes when the session closes.
   */
  on<E extends keyof SessionEvents>(event: E, listener: SessionEvents[E]): () => void {
    const set: Set<SessionEvents[E]> = this.listeners[event];
    if (this.closed) return () => undefined;
    set.add(listener);
    this.notificationListeners = undefined;
    return () => {
      set.delete(listener);
      this.notificationListeners = undefined;
    };
  }

  private emitCancel(): void {
    for (const hook of [...this.listeners.cancel]) hook();
  }

  /** The live client with this thread loaded; resumes the thread after a child restart. */
  async ensureAttached(): Promise<AppServerClient> {
    const client = await this.deps.host.client();
    const generation = this.deps.host.currentGeneration;
    if (generation !== this.attachedGeneration || !this.detach) {
      this.deps.log.info({ sessionId: this.id }, "resuming the thread in a new codex app-server");
      const threadId = await reattachThread(client, { id: this.id, threadId: this.currentThread, settings: this.threadSettings, keptByCodex: this.keptByCodex }, this.deps.threads, this.deps.log);
      // Closed while resuming: stay detached (a closed session must not hear its thread).
      if (this.closed) throw invalidRequest(`Session ${this.id} is closed`);
      this.currentThread = threadId;
      this.bind(client, generation);
    }
    return client;
  }

  private onNotification(n: CodexNotification): void {
    if (!this.turns.admits(n)) return;
    if (n.method === "item/started") this.items.set(n.params.item.id, n.params.item);
    if (n.method === "thread/tokenUsage/updated") this.tokenTotals = n.params.tokenUsage.total;
    // A copy made when the listeners change, not per event: one joining or leaving meanwhile does so from the next event.
    this.notificationListeners ??= [...this.listeners.notification];
    for (const listener of this.notificationListeners) {
      // A feature's bug costs that feature only: the client still gets this event.
      try {
        listener(n);
      } catch (err) {
        this.deps.log.warn({ sessionId: this.id, method: n.method, err: err instanceof Error ? err.message : String(err) }, "a session listener failed");
      }
    }
    if (n.method === "item/completed") this.items.delete(n.params.item.id);
    const turn = this.turns.active;
    if (n.method === "turn/started") this.turns.started(n);
    if (n.method === "error" && turn && !n.params.willRetry) {
      turn.lastError = n.params.error;
      this.turns.failedBeforeStart(n.params.turnId, n.params.error);
    }
    const updates = this.translator.translate(n);
    if (n.method === "thread/tokenUsage/updated" && this.listeners.usageMeta.size > 0) addUsageMeta(updates, this.listeners.usageMeta, (err) => this.deps.log.warn({ sessionId: this.id, err }, "a usage_update _meta listener failed"));
    const ended = n.method === "item/completed" ? n.params.item : undefined;
    // A failed send is the outbox's to report (the client is gone); nothing here waits on it.
    for (const update of this.withEndings(updates, ended, ended && this.translator.viewOf(ended.id)?.content)) void this.outbox.send(update);
    if (n.method === "turn/completed") this.turns.completed(n.params);
  }
}
