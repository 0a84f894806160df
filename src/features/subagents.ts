// Subagents: when a turn spawns one (Codex's collab tools), its thread is routed to the session
// (Session.adoptThread: its events here, its approvals asked like the session's own) and shown
// as one tool call per subagent that updates as it works: what it ran, read and edited, then
// its last message, in progress while its turn runs. Clients that declare `subagents` (ACP's
// unstable schema) also hear `subagent_update` with the child's title and running/idle state,
// and the child's own conversation as session/updates under its session id (its thread id).
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  ThreadEventTranslator,
  asToolItem,
  describeItem,
  replayTurns,
  textContent,
  type SessionUpdate,
} from "../bridge/index.js";
import type { CodexNotification, v2 } from "../codex/index.js";
import { clientDisplay } from "../core/index.js";
import type { SessionFeature } from "../core/index.js";
import { textHead } from "../text/index.js";
import { JsonRpcCode } from "../json-rpc/index.js";

/** Idle subagents kept routed with their card; older idle ones are let go (a later message to one starts a new card). */
const MAX_IDLE_SUBAGENTS = 32;

/** The most activity lines a subagent's card shows (the newest). */
const MAX_ACTIVITY_LINES = 30;

type Card = {
  toolCallId: string;
  title: string;
  activity: string[];
  /** Steps no longer in `activity` (only the newest are kept). */
  earlier: number;
  lastMessage: string;
};

/** One line of a title: the prompt's first line, shortened. */
function shortTitle(prompt: string | null): string {
  const first =
    (prompt ?? "")
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "";
  return first.length > 60 ? `${textHead(first, 59)}…` : first;
}

function cardContent(card: Card): acp.ToolCallContent[] {
  const lines = card.activity.slice(-MAX_ACTIVITY_LINES);
  const hidden = card.earlier + card.activity.length - lines.length;
  const text = [
    ...(hidden > 0 ? [`… ${hidden} earlier steps`] : []),
    ...lines,
    ...(card.lastMessage ? ["", card.lastMessage] : []),
  ].join("\n");
  return text ? [textContent(text)] : [];
}

/** What one of the subagent's items adds to its card (a step, or its latest message). */
function record(card: Card, item: v2.ThreadItem): boolean {
  if (item.type === "agentMessage") {
    card.lastMessage = item.text;
    return item.text.length > 0;
  }
  const tool = asToolItem(item);
  if (!tool) return false;
  card.activity.push(`• ${describeItem(tool, undefined).title}`);
  // Only the newest lines are shown; the count of the rest is kept instead of the lines.
  if (card.activity.length > MAX_ACTIVITY_LINES)
    card.earlier += card.activity.splice(0, card.activity.length - MAX_ACTIVITY_LINES).length;
  return true;
}

/** How a subagent's item ended, as a tool call status (declined and failed alike: not done). */
function endStatus(item: v2.ThreadItem): "completed" | "failed" {
  const status = "status" in item ? item.status : "completed";
  return status === "completed" ? "completed" : "failed";
}

export function subagentsFeature(): SessionFeature {
  return {
    name: "subagents",
    attach(session, _opening, services) {
      const cards = new Map<string, Card>();
      const announcesChildren = (): boolean => services.clientCapabilities().subagents != null;

      const send = (update: SessionUpdate): void => void session.send(update).catch(() => undefined);
      /** Each announced child's translator while its turn runs (dropped at its end: a turn starts it afresh). */
      const translators = new Map<string, ThreadEventTranslator>();
      /** The children's updates, written in order. */
      let written = Promise.resolve();
      const childStream = (threadId: string, n: CodexNotification): void => {
        let translator = translators.get(threadId);
        if (!translator) {
          translator = new ThreadEventTranslator({
            cwd: () => session.cwd,
            display: () => clientDisplay(services.clientCapabilities()),
          });
          translators.set(threadId, translator);
        }
        // What the parent asked it: a user message there (the session's own are the client's).
        const asked =
          n.method === "item/completed" && n.params.item.type === "userMessage"
            ? replayTurns([{ id: n.params.turnId, status: "completed", items: [n.params.item] }])
            : [];
        // A command's card waits for what it changed (editor-files/command-cards.ts), as the session's own do.
        const ended = n.method === "item/completed" ? n.params.item : undefined;
        for (const update of session.withEndings(
          [...asked, ...translator.translate(n)],
          ended,
          ended && translator.viewOf(ended.id)?.content,
        )) {
          written = written
            .then(async () =>
              services
                .client()
                .notify(acp.methods.client.session.update, { sessionId: threadId, update: await update }),
            )
            .catch(() => undefined);
        }
        if (n.method === "turn/completed") translators.delete(threadId);
      };
      /** Lets the oldest idle subagents go once more than MAX_IDLE_SUBAGENTS are idle. */
      const idle = new Set<string>();
      const settle = (threadId: string, isIdle: boolean): void => {
        idle.delete(threadId);
        if (!isIdle) return;
        idle.add(threadId);
        for (const oldest of idle) {
          if (idle.size <= MAX_IDLE_SUBAGENTS) break;
          idle.delete(oldest);
          cards.delete(oldest);
          translators.delete(oldest);
          session.releaseThread(oldest);
        }
      };
      session.on("sizes", () => ({ subagentCards: cards.size, subagentTranslators: translators.size }));
      /** Running, or idle with how its last turn ended (an error carries Codex's message). */
      const childState = (
        threadId: string,
        running: boolean,
        card: Card,
        ended?: { status: string; error?: string },
      ): void => {
        if (!announcesChildren()) return;
        const idle =
          ended?.status === "failed"
            ? {
                state: "idle",
                stopReason: "error",
                error: { code: JsonRpcCode.InternalError, message: ended.error ?? "the subagent's turn failed" },
              }
            : { state: "idle", stopReason: ended?.status === "interrupted" ? "cancelled" : "end_turn" };
        send({
          sessionUpdate: "subagent_update",
          sessionId: threadId,
          title: card.title,
          state: running ? { state: "running" } : idle,
        });
      };

      const onChild =
        (threadId: string, card: Card) =>
        (n: CodexNotification): void => {
          if (announcesChildren()) childStream(threadId, n);
          // Its approvals are asked in this session: they need the item (what it runs, its diff).
          if (n.method === "item/started") session.childItems.started(n.params.item, card.title, threadId);
          if (n.method === "item/completed") session.childItems.ended(n.params.item.id, endStatus(n.params.item));
          // An interrupted subagent never completes what it had started.
          if (n.method === "turn/completed") session.childItems.endThread(threadId);
          switch (n.method) {
            case "turn/started":
              settle(threadId, false);
              send({ sessionUpdate: "tool_call_update", toolCallId: card.toolCallId, status: "in_progress" });
              childState(threadId, true, card);
              return;
            case "item/completed":
              if (record(card, n.params.item))
                send({ sessionUpdate: "tool_call_update", toolCallId: card.toolCallId, content: cardContent(card) });
              return;
            case "turn/completed": {
              const failed = n.params.turn.status === "failed";
              const error = n.params.turn.error?.message;
              if (error) card.activity.push(`Failed: ${error}`);
              send({
                sessionUpdate: "tool_call_update",
                toolCallId: card.toolCallId,
                status: failed ? "failed" : "completed",
                content: cardContent(card),
              });
              childState(threadId, false, card, { status: n.params.turn.status, ...(error ? { error } : {}) });
              settle(threadId, true);
              return;
            }
            default:
              return;
          }
        };

      const adopt = (threadId: string, spawn: v2.ThreadItem & { type: "collabAgentToolCall" }): void => {
        const title = shortTitle(spawn.prompt);
        const card: Card = {
          toolCallId: `subagent-${threadId}`,
          title: title ? `Subagent: ${title}` : "Subagent",
          activity: [],
          earlier: 0,
          lastMessage: "",
        };
        cards.set(threadId, card);
        send({
          sessionUpdate: "tool_call",
          toolCallId: card.toolCallId,
          title: card.title,
          kind: "think",
          status: "in_progress",
          rawInput: { prompt: spawn.prompt, model: spawn.model, threadId },
        });
        childState(threadId, true, card);
        session.adoptThread(threadId, onChild(threadId, card));
      };

      session.on("notification", (n) => {
        if (n.method !== "item/started" && n.method !== "item/completed") return;
        const item = n.params.item;
        if (item.type !== "collabAgentToolCall") return;
        for (const threadId of item.receiverThreadIds) {
          const card = cards.get(threadId);
          if (!card) adopt(threadId, item);
          // Known, but a restarted codex child forgot the routing: take it up again (a no-op if routed).
          else session.adoptThread(threadId, onChild(threadId, card));
        }
      });
    },
  };
}
