// Which Codex turn a thread's events belong to. A prompt's turn is named by Codex's answer to
// `turn/start` (or `review/start`), which can come after the turn's first events, after a cancel,
// or after the prompt was answered; until then no other turn of the session may take its
// events. So: a turn is started only once every earlier start was answered (each earlier turn is
// named or known never to have started), a turn given up before it was named is interrupted and
// silenced once named, and a `turn/completed` that comes before the answer waits for it.
import { turnCompletedSchema, type CodexNotification, type v2 } from "../../codex/index.js";

export type TurnOutcome = {
  status: string;
  error?: { message: string; codexErrorInfo?: unknown; additionalDetails?: string | null };
};

type TurnEnd = TurnOutcome & { id: string; rootTurnId?: string | null | undefined };

/** The most cancelled turns whose late item events are kept from the client (the latest ones). */
const MAX_ANSWERED_CANCELLED = 16;

/** The most `turn/completed` kept for a turn Codex has not named yet (only its own can be among them). */
const MAX_EARLY_ENDS = 8;

export type PromptTurn = {
  turnId?: string;
  /** Codex names this turn in its answer to the start (turn/start, review/start); a compaction's answer does not. */
  readonly namedByAnswer: boolean;
  /** Codex's thread token totals when the turn started (its usage is what they grow by). */
  readonly tokensBefore?: v2.TokenUsageBreakdown;
  cancelRequested: boolean;
  /** Codex's last final `error` notification of the turn (its turn/completed may carry none). */
  lastError?: NonNullable<TurnOutcome["error"]>;
  /** The turn's outcome, once it has one (first one wins). */
  readonly outcome: Promise<TurnOutcome | Error>;
  settle(outcome: TurnOutcome | Error): void;
};

type TurnState = PromptTurn & { earlyEnds: TurnEnd[]; fallback?: NodeJS.Timeout; startedByCodex?: boolean };

export class ThreadTurns {
  private running: TurnState | undefined;
  /** Turns given up (their prompt was answered) that Codex has not ended: their events are dropped. */
  private readonly abandoned = new Set<string>();
  /** A turn given up before Codex named it; until its start is answered, no event with a turn id is shown. */
  private unnamed: { turn: TurnState; endedMeanwhile: Set<string> } | undefined;
  /**
   * Cancelled turns whose prompt was answered: Codex may still report their items (a command it let
   * finish), but ACP wants every update of a cancelled prompt before its answer, so those go unshown.
   */
  private readonly answeredCancelled = new Set<string>();
  /** The latest turn start, settled either way: the next turn starts after it. */
  private lastStart: Promise<unknown> = Promise.resolve();

  get active(): PromptTurn | undefined {
    return this.running;
  }

  /** Resolves once every earlier turn's start was answered (so each is named or never started). */
  previousStart(): Promise<unknown> {
    return this.lastStart;
  }

  begin(namedByAnswer: boolean, tokensBefore: v2.TokenUsageBreakdown | undefined): PromptTurn {
    let settle!: (outcome: TurnOutcome | Error) => void;
    const outcome = new Promise<TurnOutcome | Error>((resolve) => (settle = resolve));
    const turn: TurnState = {
      namedByAnswer,
      cancelRequested: false,
      outcome,
      settle,
      earlyEnds: [],
      ...(tokensBefore ? { tokensBefore } : {}),
    };
    this.running = turn;
    return turn;
  }

  /** The turn's start is on its way; the next turn waits for it, whatever it brings. */
  starting(turn: PromptTurn, start: Promise<unknown>): void {
    this.lastStart = start.then(
      () => this.startSettled(turn),
      () => this.startSettled(turn),
    );
  }

  /** Codex answered the turn's start with its id. True when the turn must now be interrupted (cancelled or given up). */
  named(turn: PromptTurn, id: string): boolean {
    turn.turnId = id;
    const unnamed = this.unnamed;
    if (unnamed?.turn === turn) {
      this.unnamed = undefined;
      if (unnamed.endedMeanwhile.has(id)) return false;
      this.abandoned.add(id);
      return true;
    }
    const state = turn as TurnState;
    const ended = state.earlyEnds.find((end) => end.id === id || end.rootTurnId === id);
    state.earlyEnds = [];
    if (ended) turn.settle(ended.error ? { status: ended.status, error: ended.error } : { status: ended.status });
    return turn.cancelRequested;
  }

  /**
   * After a cancel, gives the turn `graceMs` to end; then its prompt is answered anyway and the
   * turn's later events are dropped. Nothing happens if the turn ends first.
   */
  giveUpAfter(turn: PromptTurn, graceMs: number, onGiveUp: () => void): void {
    const state = turn as TurnState;
    clearTimeout(state.fallback);
    state.fallback = setTimeout(() => {
      if (this.running !== state) return;
      if (state.turnId) this.abandoned.add(state.turnId);
      else this.unnamed = { turn: state, endedMeanwhile: new Set() };
      onGiveUp();
      state.settle({ status: "interrupted" });
    }, graceMs);
    state.fallback.unref();
  }

  /** The prompt of `turn` is answered: its fallback timer goes. */
  finished(turn: PromptTurn): void {
    const state = turn as TurnState;
    clearTimeout(state.fallback);
    if (turn.cancelRequested && turn.turnId) {
      this.answeredCancelled.add(turn.turnId);
      if (this.answeredCancelled.size > MAX_ANSWERED_CANCELLED)
        this.answeredCancelled.delete(this.answeredCancelled.values().next().value!);
    }
    state.earlyEnds = [];
    if (this.running === state) this.running = undefined;
  }

  /** False when the event belongs to a turn that was given up (or may: one Codex has not named yet). */
  admits(n: CodexNotification): boolean {
    const turnId = turnIdOf(n);
    if (turnId === undefined) return true;
    if (this.abandoned.has(turnId)) {
      if (n.method === "turn/completed") this.abandoned.delete(turnId);
      return false;
    }
    if (this.unnamed) {
      if (n.method === "turn/completed") this.unnamed.endedMeanwhile.add(turnId);
      return false;
    }
    // Every streamed delta passes here: the set is empty unless a prompt was cancelled.
    return this.answeredCancelled.size === 0 || !(n.method.startsWith("item/") && this.answeredCancelled.has(turnId));
  }

  /** Takes the running turn's id from `turn/started` when Codex's answer does not carry it. */
  started(n: Extract<CodexNotification, { method: "turn/started" }>): void {
    const turn = this.running;
    if (turn) turn.startedByCodex = true;
    // A review's turn/started names its own id, its start and end name the review's (the root).
    if (turn && !turn.turnId && !turn.namedByAnswer) turn.turnId = n.params.turn.rootTurnId ?? n.params.turn.id;
  }

  /** A `turn/completed`: ends the running turn when it is its own. */
  completed(params: unknown): void {
    const parsed = turnCompletedSchema.safeParse(params);
    if (!parsed.success) return;
    const done = parsed.data.turn;
    this.ended({
      id: done.id,
      rootTurnId: done.rootTurnId,
      status: done.status,
      ...(done.error ? { error: done.error } : {}),
    });
  }

  /**
   * A final `error` for a turn Codex never started (a review where there is no git repository):
   * Codex sends no turn/completed for it, so the error ends it. A started turn ends with its
   * turn/completed, as ever.
   */
  failedBeforeStart(turnId: string, error: NonNullable<TurnOutcome["error"]>): void {
    if (this.running && !this.running.startedByCodex) this.ended({ id: turnId, status: "failed", error });
  }

  /** Ends the running turn with `end` when it is its own (kept until Codex names the turn if need be). */
  private ended(end: TurnEnd): void {
    const turn = this.running;
    if (!turn) return;
    if (!turn.turnId && turn.namedByAnswer) {
      if (turn.earlyEnds.length < MAX_EARLY_ENDS) turn.earlyEnds.push(end);
      return;
    }
    if (turn.turnId && end.id !== turn.turnId && end.rootTurnId !== turn.turnId) return;
    turn.settle(end.error ? { status: end.status, error: end.error } : { status: end.status });
  }

  /** The codex child is gone: the turns it ran will send nothing more. */
  forgetCodexTurns(): void {
    this.abandoned.clear();
    this.unnamed = undefined;
  }

  /** Sizes of what this keeps, for the soak (they must stay flat). */
  get sizes(): { abandonedTurns: number } {
    return { abandonedTurns: this.abandoned.size };
  }

  private startSettled(turn: PromptTurn): void {
    if (this.unnamed?.turn === turn) this.unnamed = undefined;
  }
}

/** The turn a notification belongs to, when it says (read by hand: most methods' params are not checked). */
function turnIdOf(n: CodexNotification): string | undefined {
  const p = n.params;
  if (typeof p !== "object" || p === null) return undefined;
  if ("turnId" in p && typeof p.turnId === "string") return p.turnId;
  if ("turn" in p && p.turn && typeof p.turn === "object" && "id" in p.turn && typeof p.turn.id === "string")
    return p.turn.id;
  return undefined;
}
