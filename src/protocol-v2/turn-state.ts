// One v2 session's foreground state, which v1 never said: `running` when a prompt starts,
// `requires_action` while every running prompt waits on the user (a permission), `idle` with the
// stop reason and usage when the last prompt ends. Queued prompts (the agent runs them one after
// another) keep the session running until the last one's answer.
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { SessionUpdateMapper } from "./updates.js";

type StateUpdate = Extract<v2.SessionUpdate, { sessionUpdate: "state_update" }>;
/** How a prompt ended: v1's answer, or the error it failed with. */
export type PromptEnd =
  | { stopReason: v1.StopReason; usage?: v1.Usage | null }
  | { error: { code: number; message: string; data?: unknown } };

export class V2Session {
  readonly mapper = new SessionUpdateMapper();
  /** The permission requests waiting on the client, by tool call id: what tool_call/cancel and session/cancel withdraw. */
  readonly waiting = new Map<string, AbortController>();
  private prompts = 0;
  private last: StateUpdate = { sessionUpdate: "state_update", state: "idle" };

  constructor(private readonly send: (update: v2.SessionUpdate) => void) {}

  /** The current state, as a snapshot (a resume sends it after the replay; session/status returns it). */
  snapshot(): StateUpdate {
    return this.last;
  }

  promptStarted(): void {
    this.prompts++;
    if (this.prompts === 1) this.set({ sessionUpdate: "state_update", state: "running" });
  }

  promptEnded(end: PromptEnd): void {
    this.prompts = Math.max(0, this.prompts - 1);
    if (this.prompts > 0) {
      // Another prompt still runs, and the idle state will carry its end: this one's failure (a
      // queued prompt the agent refused) is told now, or the client never hears of it.
      if ("error" in end)
        this.send({
          sessionUpdate: "notice",
          severity: "error",
          title: "A prompt could not be run",
          description: end.error.message,
        });
      return;
    }
    this.mapper.forgetToolCalls();
    this.set(idle(end));
  }

  /** A permission request went to the client (true) or was answered (false). */
  waitingChanged(): void {
    if (this.prompts === 0) return;
    const state = this.waiting.size > 0 ? "requires_action" : "running";
    if (this.last.state !== state)
      this.set(
        state === "running" ? { sessionUpdate: "state_update", state } : { sessionUpdate: "state_update", state },
      );
  }

  /** Withdraws every permission request still open (the session was cancelled or closed). */
  withdrawAll(): void {
    for (const controller of this.waiting.values()) controller.abort();
  }

  private set(update: StateUpdate): void {
    this.last = update;
    this.send(update);
  }
}

/** The idle state a prompt's end leaves: v1's stop reasons are v2's, and a failure is v2's `error` stop reason with its error. */
function idle(end: PromptEnd): StateUpdate {
  if ("error" in end) return { sessionUpdate: "state_update", state: "idle", stopReason: "error", error: end.error };
  const usage = end.usage ? { usage: end.usage } : {};
  switch (end.stopReason) {
    case "end_turn":
      return { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", ...usage };
    case "max_tokens":
      return { sessionUpdate: "state_update", state: "idle", stopReason: "max_tokens", ...usage };
    case "max_turn_requests":
      return { sessionUpdate: "state_update", state: "idle", stopReason: "max_turn_requests", ...usage };
    case "refusal":
      return { sessionUpdate: "state_update", state: "idle", stopReason: "refusal", ...usage };
    case "cancelled":
      return { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled", ...usage };
  }
}
