// One ACP session = one Codex thread: what features reach of it. Its events go to the features and
// the client in order, its settings, mode and roots change (session-events.ts); it re-attaches the
// thread to a new app-server child when the previous one died (thread-binding.ts: Codex keeps the
// rollout and `thread/resume` reloads it; a thread never prompted is replaced: session-threads.ts).
// Prompts run as turns through turn-runner.ts; which turn an event belongs to is turns.ts's.
import type { PromptResponse, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { childDiedMessage, internalError, invalidRequest } from "../errors.js";
import type {
  AppServerClient,
  CodexHost,
  CodexNotification,
  CodexServerRequest,
  UserInput,
  v2,
} from "../../codex/index.js";
import type { ClientDisplay, Item, SessionUpdate } from "../../bridge/index.js";
import type { Logger } from "../../log/index.js";
import { markPhase } from "../../log/index.js";
import { collaborationParams, keptTurnParams, type ThreadSettings } from "./thread-config.js";
import { reattachThread, startThreadAnew, type SessionThreads } from "./session-threads.js";
import type { ThreadTurns } from "./turns.js";
import { TurnRunner } from "./turn-runner.js";
import type { ChildItems } from "./child-items.js";
import {
  SessionState,
  SessionStream,
  type ModeId,
  type SessionChange,
  type SessionEvents,
  type StateChange,
} from "./session-events.js";
import { ThreadBinding } from "./thread-binding.js";

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
  private readonly stream: SessionStream; // the thread's events on their way to the features and the client
  private readonly runner: TurnRunner;
  private readonly turns: ThreadTurns; // the runner's: which Codex turn an event belongs to
  private readonly turnContext = new Map<string, string>();
  /** The codex child the thread is routed from, what it was told, and the subagents' threads routed here with it. */
  private readonly binding = new ThreadBinding();
  private closed = false;
  /** Its settings, mode and roots, with the listeners of their changes. */
  private readonly state: SessionState;
  /** The Codex thread the session runs on: its own id, unless Codex could not bring that back (session-threads.ts). */
  private currentThread: string;
  /** Codex has the thread on disk (resumed, forked, or a turn started): it is never replaced. */
  private keptByCodex = true;

  constructor(
    /** The ACP session id, the same for the client and every feature whichever thread the session runs on. */
    readonly id: string,
    threadSettings: ThreadSettings,
    private readonly deps: SessionDeps,
    threadId: string = id,
  ) {
    this.currentThread = threadId;
    this.state = new SessionState(threadSettings, (err) =>
      deps.log.error({ sessionId: id, err: String(err) }, "a session change listener failed"),
    );
    this.stream = new SessionStream({
      sessionId: id,
      log: deps.log,
      cwd: () => this.settings.cwd,
      display: () => deps.display(),
      deliver: (update) => deps.sendUpdate(id, update),
      hold: () => deps.updatesHold?.(id),
      turns: () => this.turns,
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
        if (what !== "turn/start") this.binding.forgetKeptParams();
        this.stream.translator.reset();
      },
      ...this.stream.turnHooks(() => this.trackerSizes()),
    });
    this.turns = this.runner.turns;
  }

  /** The thread's items that started and have not completed yet, by id (one tracker for every feature). */
  get items(): Map<string, Item> {
    return this.stream.items;
  }

  /** The same for subagents' threads (subagents.ts), with the subagent's title: the client never saw these items. */
  get childItems(): ChildItems {
    return this.stream.childItems;
  }

  /** What thread/start, thread/resume and turn/start are built from; change it with update(). */
  get settings(): Readonly<ThreadSettings> {
    return this.state.settings;
  }

  /** The id of the Codex thread the session runs on now: what a request to Codex about this session names. */
  get threadId(): string {
    return this.currentThread;
  }

  /** The session's mode (`read-only` | `auto` | `full-access`): Codex's policy and the file tools' write rule. */
  get mode(): ModeId {
    return this.state.mode;
  }

  /** Workspace roots: writes inside them need no prompt in `auto`. */
  get roots(): readonly string[] {
    return this.state.roots;
  }

  /** Changes the mode and/or settings (from the next turn) and tells the listeners what changed. */
  update(change: StateChange): void {
    this.state.update(change);
  }

  /** Listens to the session's changes; returns the unsubscribe. */
  onChange(listener: (change: SessionChange) => void): () => void {
    return this.state.onChange(listener);
  }

  get cwd(): string {
    return this.state.settings.cwd;
  }

  /** Starts the thread anew with `settings` while Codex keeps nothing of it (never prompted): what only thread/start takes applies. Undefined (nothing done) once Codex keeps it: a turn ran or is running. */
  async startAnew(settings: ThreadSettings): Promise<v2.ThreadStartResponse | undefined> {
    if (this.keptByCodex || this.promptRunning) return undefined;
    const client = await this.ensureAttached();
    const started = await startThreadAnew(
      client,
      { id: this.id, threadId: this.currentThread, settings, keptByCodex: false },
      this.deps.threads,
      this.deps.log,
    );
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
    this.binding.bind(client, generation, this.currentThread, {
      notification: (n) => this.stream.receive(n),
      request: (request, withdrawn) => this.deps.answerServerRequest(this, request, withdrawn),
    });
    for (const n of early) this.stream.receive(n); // said while the thread resumed (open-thread.ts)
  }

  /** Routes a thread this session's turns spawned (a subagent) to `listener`, and answers its requests (approvals, questions) as this session's, where they would otherwise be refused as unknown; until the session closes or moves to another codex child. */
  adoptThread(threadId: string, listener: (n: CodexNotification) => void): void {
    this.binding.adopt(threadId, this.currentThread, {
      notification: listener,
      request: (request, withdrawn) => this.deps.answerServerRequest(this, request, withdrawn),
    });
  }

  /** Stops routing a subagent's thread here (it is idle and let go; a later message adopts it again). */
  releaseThread(threadId: string): void {
    this.binding.release(threadId);
  }

  /** How much each of this session's trackers holds, features' included (for the soak: they must stay flat). */
  trackerSizes(): Record<string, number> {
    return this.stream.sizes({
      adoptedThreads: this.binding.adoptedCount,
      queuedPrompts: this.runner.queuedCount,
      turnContext: this.turnContext.size,
      ...this.turns.sizes,
    });
  }

  /** `updates` with `ended`'s last one made once what features add to it is known (tool-call-endings.ts); subagents' cards too. */
  withEndings(
    updates: SessionUpdate[],
    ended: Item | undefined,
    shown: ToolCallContent[] | undefined,
  ): Array<SessionUpdate | Promise<SessionUpdate>> {
    return this.stream.withEndings(updates, ended, shown);
  }

  /** Sends an update in order with every other update of this session. */
  send(update: SessionUpdate): Promise<void> {
    return this.stream.send(update);
  }

  /** Waits until every update sent so far is with the connection (what it sends next follows them). */
  flush(): Promise<void> {
    return this.stream.flush();
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
      await Promise.all([...this.stream.listeners.sets.beforeTurn].map((prepare) => prepare().catch(() => undefined)));
      const context = [...this.turnContext];
      const kept = this.binding.keptParams(this.settings, client);
      markPhase(this.deps.log, "prompt: turn/start sent");
      const started = await client.call("turn/start", {
        threadId: this.currentThread,
        input,
        ...(context.length > 0
          ? {
              additionalContext: Object.fromEntries(
                context.map(([source, value]) => [source, { value, kind: "application" as const }]),
              ),
            }
          : {}),
        ...kept.params,
        ...collaborationParams(this.settings),
      });
      markPhase(this.deps.log, "prompt: turn/start answered");
      kept.sent();
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
    this.stream.tokenTotals ??= {
      totalTokens: 0,
      inputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      outputTokens: 0,
      reasoningOutputTokens: 0,
    };
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
    if (generation !== this.binding.generation) return;
    this.binding.detach();
    this.turns.forgetCodexTurns();
    // Questions pending for the dead child can no longer be answered: withdraw them.
    if (this.turns.active) this.stream.listeners.cancel();
    this.stream.childExited();
    this.turns.active?.settle(internalError(childDiedMessage(reason)));
  }

  close(): void {
    this.closed = true;
    void this.cancel();
    this.binding.detach();
    this.stream.childItems.clear();
    // Disposal is the session's: no feature can leave a listener behind.
    this.stream.listeners.clear();
    this.state.clear();
  }

  /**
   * Listens to one of the session's events: `notification` (each of the thread's Codex events),
   * `cancel` (the prompt was cancelled or its codex died: withdraw what waits on the user),
   * `beforeTurn` (awaited as a prompt's turn starts), `sizes` (a feature's trackers, for the soak), `usageMeta` (`_meta` entries for usage_update).
   * Returns the unsubscribe; every listener goes when the session closes.
   */
  on<E extends keyof SessionEvents>(event: E, listener: SessionEvents[E]): () => void {
    return this.closed ? () => undefined : this.stream.listeners.on(event, listener);
  }

  /** The live client with this thread loaded; resumes the thread after a child restart. */
  ensureAttached(): Promise<AppServerClient> {
    return this.binding.live(this.deps.host, async (client, generation) => {
      this.deps.log.info({ sessionId: this.id }, "resuming the thread in a new codex app-server");
      const threadId = await reattachThread(
        client,
        { id: this.id, threadId: this.currentThread, settings: this.state.settings, keptByCodex: this.keptByCodex },
        this.deps.threads,
        this.deps.log,
      );
      // Closed while resuming: stay detached (a closed session must not hear its thread).
      if (this.closed) throw invalidRequest(`Session ${this.id} is closed`);
      this.currentThread = threadId;
      this.bind(client, generation);
    });
  }
}
