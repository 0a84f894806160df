// Prompt suggestions: after a prompt's turn completes, the message the user is likely to send
// next, for the client to offer in its empty message box. Off unless the user turns the session's
// "prompt_suggestions" option on (config-options): each one costs a model call.
//
// Asked of Codex with `thread/sample` (a model request over the thread's history and one more
// instruction, which adds nothing to the thread's history nor to its next turn's input; Codex
// 0.171 answers `thread/prediction/request` with "not implemented yet"). Sent as the official
// adapters send it (@agentclientprotocol/codex-acp 2.6 and claude-agent-acp): ACP has no update
// for it, so it rides a `session_info_update` as `_meta.promptSuggestions = { suggestions: [{ text }] }`;
// an empty list clears what the client shows, which the next prompt does before its turn. A client
// that reads no such key sees a session info update that changes nothing.
//
// Asked only after a turn that ran a prompt (a user message) and completed, outside plan mode (as
// the official adapter); an answer that comes after the next prompt started is dropped.
import { z } from "zod";
import type { CodexNotification } from "../codex/index.js";
import type { AgentServices, SessionFeature } from "../core/index.js";
import type { AcpSession } from "../core/index.js";

/** The `_meta` key of the update that carries the suggestion (the official adapters'; it names no vendor). */
export const SUGGESTION_META_KEY = "promptSuggestions";

/** The instruction the model gets after the conversation (the user never sees it). */
export const SUGGESTION_PROMPT = [
  "This request comes from the editor, not from the user: suggest the user's next message.",
  "The suggestion is shown in the user's empty message box, where they may take it, edit it or ignore it; it is never sent for them.",
  "From the conversation so far, write the one message the user is most likely to type next, in their own words: the next step of what they are doing, not a general idea. Answer null only when the conversation gives no clear next step.",
  'Answer with JSON only, {"suggestion": string or null}: one line, at most 240 characters, no alternatives, no explanation.',
].join("\n\n");

const answerSchema = z.looseObject({ suggestion: z.string().nullish() });

/** The suggestion in the model's answer: null for none, a blank one, or an answer that is not the JSON asked for. */
export function suggestionOf(text: string | null | undefined): string | null {
  // Models sometimes fence JSON as a code block.
  const json = text?.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1");
  if (!json) return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  const read = answerSchema.safeParse(value);
  const suggestion = read.success ? read.data.suggestion?.replace(/\s+/g, " ").trim() : undefined;
  return suggestion ? suggestion : null;
}

type SuggestionState = {
  /** Bumped by each prompt that starts: a sample asked before it is dropped. */
  generation: number;
  /** What the client was last sent (null: none, or cleared). */
  shown: string | null;
  /** The turn that ran a prompt (a user message), until it ends. */
  promptTurn: string | undefined;
  /** Codex refused a sample once (an older codex without thread/sample): said once per session. */
  warned: boolean;
};

export function promptSuggestionsFeature(): SessionFeature {
  const publish = (session: AcpSession, state: SuggestionState, text: string | null): Promise<void> => {
    if (text === state.shown) return Promise.resolve();
    state.shown = text;
    return session.send({
      sessionUpdate: "session_info_update",
      _meta: { [SUGGESTION_META_KEY]: { suggestions: text === null ? [] : [{ text }] } },
    });
  };

  const suggest = async (
    session: AcpSession,
    state: SuggestionState,
    turnId: string,
    services: AgentServices,
  ): Promise<void> => {
    const generation = ++state.generation;
    let answer: string | null;
    try {
      const client = await services.host.client();
      answer = (
        await client.call("thread/sample", {
          threadId: session.threadId,
          expectedTurnId: turnId,
          prompt: SUGGESTION_PROMPT,
        })
      ).text;
    } catch (err) {
      const level = state.warned ? "debug" : "warn";
      state.warned = true;
      services.log[level](
        { sessionId: session.id, err: String(err) },
        "no prompt suggestion: codex could not sample the thread",
      );
      return;
    }
    if (generation !== state.generation || session.isClosed) return;
    const text = suggestionOf(answer);
    services.log.debug({ sessionId: session.id, suggested: text !== null }, "prompt suggestion");
    // A failed send is the session's outbox's to report (the client is gone).
    await publish(session, state, text).catch(() => undefined);
  };

  return {
    name: "prompt-suggestions",
    attach(session, _opening, services) {
      // Kept by the session's listeners only: they go when it closes, and this with them.
      const state: SuggestionState = { generation: 0, shown: null, promptTurn: undefined, warned: false };
      const listener = (n: CodexNotification): void => {
        if (n.method === "item/completed" && n.params.item.type === "userMessage") state.promptTurn = n.params.turnId;
        if (n.method !== "turn/completed") return;
        const turn = n.params.turn;
        const ranPrompt = state.promptTurn === turn.id;
        state.promptTurn = undefined;
        if (
          !ranPrompt ||
          turn.status !== "completed" ||
          session.settings.promptSuggestions !== true ||
          session.settings.collaborationMode === "plan"
        )
          return;
        void suggest(session, state, turn.id, services);
      };
      session.on("notification", listener);
      // A prompt starts: what was suggested is gone from the client, and a sample still out is dropped.
      session.on("beforeTurn", async () => {
        state.generation++;
        await publish(session, state, null);
      });
    },
  };
}
