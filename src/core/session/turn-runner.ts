// A session's turn lifecycle: prompts queued behind the running one (first in, first out), one
// Codex turn at a time, the cancel (Codex's confirmation or, after a grace period, giving the turn
// up), and the prompt's answer (stop reason, usage, Codex's error). The session gives it what it
// needs of the thread (attachment, the translator's per-turn state, token totals) through
// TurnRunnerHost; which Codex turn an event belongs to is turns.ts's.
import type { PromptResponse } from "@agentclientprotocol/sdk/unstable";
import { turnStartResponseSchema, type AppServerClient, type v2 } from "../../codex/index.js";
import { turnUsage, type Item } from "../../bridge/index.js";
import type { Logger } from "../../log/index.js";
import { z } from "zod";
import {
  authRequired,
  internalError,
  invalidRequest,
  toRequestError,
  withoutSecrets,
  type RequestError,
} from "../errors.js";
import { ThreadTurns, type PromptTurn, type TurnOutcome } from "./turns.js";

/** A cancel answers the prompt within this, whatever codex does (a hung codex must not keep the editor waiting). */
const CANCEL_GRACE_MS = 900;

/** Starts Codex answers before the turn exists: the turn is the next one Codex starts (turn/started names it). */
const NAMED_BY_TURN_STARTED: ReadonlySet<string> = new Set(["thread/compact/start", "thread/goal/set"]);

/** What a turn's start returns when Codex started no turn after all (a goal it does not work on now): the prompt ends there. */
export const NO_TURN = Symbol("no Codex turn");

/** What the runner needs of its session. */
export type TurnRunnerHost = {
  readonly id: string;
  /** The Codex thread the session runs on now (session-threads.ts). */
  threadId(): string;
  isClosed(): boolean;
  readonly log: Logger;
  /** The live client with the thread loaded (resumed on a new child if need be). */
  attach(): Promise<AppServerClient>;
  /** The live client as it is (for an interrupt: never resumes anything). */
  client(): Promise<AppServerClient>;
  /** A turn of kind `what` starts: per-turn state goes. */
  turnStarting(what: string): void;
  /** The prompt was cancelled: what waits on the user for this turn is withdrawn. */
  turnCancelled(): void;
  /** The turn was given up: what it showed as running ends so. */
  turnGivenUp(): void;
  /** The turn's prompt is answered: trackers of the turn go. */
  turnEnded(): void;
  tokenTotals(): v2.TokenUsageBreakdown | undefined;
  /** The thread's items that started and have not completed (the running commands among them). */
  openItems(): Iterable<Item>;
  /** Resolves once every update queued so far was written. */
  flush(): Promise<void>;
};

export class TurnRunner {
  readonly turns = new ThreadTurns();
  /** Prompts waiting for the running one to end, in order; resolve true to run, false to give up. */
  private readonly queued: Array<(go: boolean) => void> = [];
  /** A prompt answered here with no Codex turn (runLocal) is running. */
  private localRunning = false;

  constructor(private readonly session: TurnRunnerHost) {}

  get queuedCount(): number {
    return this.queued.length;
  }

  /**
   * Runs one Codex turn started by `start` (turn/start, review/start, thread/compact/start) and
   * resolves when it ends: one lifecycle for every kind of turn (cancel, crash, close). The turn
   * id comes from the answer or, for methods that answer before the turn exists, from the next
   * turn/started.
   */
  async run(what: string, start: (client: AppServerClient) => Promise<unknown>): Promise<PromptResponse> {
    const closed = (): RequestError => invalidRequest(`Session ${this.session.id} is closed`);
    if (this.session.isClosed()) throw closed();
    // A prompt sent while another runs waits its turn (first in, first out); a cancel ends it too.
    if (this.busy()) {
      const go = await new Promise<boolean>((resolve) => this.queued.push(resolve));
      if (!go) return { stopReason: "cancelled" };
      if (this.session.isClosed()) throw closed();
    }
    // Every earlier turn is named (or never started) before this one starts: none can take its events.
    await this.turns.previousStart();
    const turn = this.turns.begin(!NAMED_BY_TURN_STARTED.has(what), this.session.tokenTotals());
    this.session.turnStarting(what);
    try {
      const starting = this.session.attach().then(async (client) => {
        // Cancelled while the thread was being resumed: nothing to start.
        if (turn.cancelRequested) return turn.settle({ status: "interrupted" });
        const answered = await start(client);
        if (answered === NO_TURN) return turn.settle({ status: "completed" });
        // A start that waited for Codex's turn/started: a cancel that came first interrupts it now.
        if (!turn.namedByAnswer && turn.cancelRequested && turn.turnId) return void this.interrupt(client, turn);
        const answer = turnStartResponseSchema.safeParse(answered);
        if (answer.success && this.turns.named(turn, answer.data.turn.id)) void this.interrupt(client, turn);
      });
      this.turns.starting(turn, starting);
      // A cancel's fallback (or a dead child) answers the prompt even while Codex has not answered the start.
      await Promise.race([starting, turn.outcome]);
      const result = await turn.outcome;
      await this.session.flush();
      if (result instanceof Error) throw result;
      const usage = turnUsage(turn.tokensBefore, this.session.tokenTotals());
      // PromptResponse.usage is in ACP's unstable schema; clients that do not know it ignore it.
      const response: PromptResponse = { stopReason: "end_turn", ...(usage ? { usage } : {}) };
      if (turn.cancelRequested || result.status === "interrupted") return { ...response, stopReason: "cancelled" };
      if (result.status === "failed") throw turnFailure(result.error ?? turn.lastError, `Codex could not run ${what}`);
      return response;
    } catch (err) {
      throw toRequestError(err);
    } finally {
      this.turns.finished(turn);
      this.session.turnEnded();
      this.queued.shift()?.(true);
    }
  }

  /**
   * Runs `action` (a prompt answered here, with no Codex turn: /status, /skills...) in the prompts'
   * order: after the running one and those sent before it, and before any sent after it, so its
   * text never lands in the middle of another answer.
   */
  async runLocal(action: () => Promise<PromptResponse>): Promise<PromptResponse> {
    if (this.session.isClosed()) throw invalidRequest(`Session ${this.session.id} is closed`);
    if (this.busy()) {
      const go = await new Promise<boolean>((resolve) => this.queued.push(resolve));
      if (!go) return { stopReason: "cancelled" };
    }
    this.localRunning = true;
    try {
      return await action();
    } finally {
      this.localRunning = false;
      this.queued.shift()?.(true);
    }
  }

  private busy(): boolean {
    return this.turns.active !== undefined || this.localRunning || this.queued.length > 0;
  }

  /** Cancels the running prompt and every queued one. */
  async cancel(): Promise<void> {
    for (const wake of this.queued.splice(0)) wake(false);
    const turn = this.turns.active;
    if (!turn || turn.cancelRequested) return;
    turn.cancelRequested = true;
    this.session.turnCancelled();
    // Codex normally confirms with turn/completed(interrupted) at once; a silent child is given up:
    // its late events are dropped, nothing follows the answer.
    this.turns.giveUpAfter(turn, CANCEL_GRACE_MS, () => this.session.turnGivenUp());
    if (turn.turnId) {
      const client = await this.session.client().catch(() => undefined);
      if (client) await Promise.all([this.interrupt(client, turn), this.stopCommands(client)]);
    }
  }

  /**
   * Stops the commands the cancelled turn is running: Codex ends the turn at once but lets its
   * commands run on (a `sleep; touch` finished seconds later), where the user pressed Stop.
   */
  private async stopCommands(client: AppServerClient): Promise<void> {
    const running = [...this.session.openItems()].flatMap((item) =>
      item.type === "commandExecution" && item.processId ? [item.processId] : [],
    );
    await Promise.all(
      running.map((processId) =>
        client
          .call("thread/backgroundTerminals/terminate", { threadId: this.session.threadId(), processId })
          .catch((err: unknown) => {
            this.session.log.debug(
              { processId, err: String(err) },
              "a cancelled turn's command could not be stopped (already over?)",
            );
          }),
      ),
    );
  }

  private async interrupt(client: AppServerClient, turn: PromptTurn): Promise<void> {
    if (!turn.turnId) return;
    try {
      await client.call("turn/interrupt", { threadId: this.session.threadId(), turnId: turn.turnId });
    } catch (err) {
      this.session.log.debug({ err: String(err) }, "turn/interrupt failed (turn already over?)");
    }
  }
}

/** An HTTP status in Codex's error info (`{httpConnectionFailed: {httpStatusCode: 401}}` and its kin). */
const httpStatusSchema = z.looseObject({ httpStatusCode: z.number().nullish() });

/**
 * Whether Codex's error info says the model provider refused the credentials: `unauthorized`
 * (ChatGPT's, after a failed token refresh), or HTTP 401 (with 0.169 an API key the provider
 * refuses is `httpConnectionFailed` with 401, and Codex does not retry it).
 */
export function credentialsRefused(info: unknown): boolean {
  if (info === "unauthorized") return true;
  if (typeof info !== "object" || info === null) return false;
  return Object.values(info).some((detail) => httpStatusSchema.safeParse(detail).data?.httpStatusCode === 401);
}

/**
 * A failed turn as a JSON-RPC error: Codex's own message, its error code, and any details. A
 * refusal of the credentials is ACP's auth-required: the user signs in, then sends the prompt again.
 */
function turnFailure(error: TurnOutcome["error"], fallback: string): RequestError {
  const message = error?.message ?? fallback;
  const info = error?.codexErrorInfo;
  const code = typeof info === "string" ? info : info && typeof info === "object" ? Object.keys(info)[0] : undefined;
  const details = error?.additionalDetails ? `: ${error.additionalDetails}` : "";
  if (credentialsRefused(info)) {
    return authRequired(
      `The model provider refused Codex's credentials (they expired or were revoked); sign in again, then send the prompt again. Codex: ${withoutSecrets(`${message}${details}`)}`,
      {
        codexErrorInfo: info,
        additionalDetails: error?.additionalDetails ? withoutSecrets(error.additionalDetails) : null,
      },
    );
  }
  return internalError(`${message}${details}${code ? ` [${code}]` : ""}`, {
    codexErrorInfo: info ?? null,
    additionalDetails: error?.additionalDetails ?? null,
  });
}
