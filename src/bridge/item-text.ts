// The text a completed item shows, the same live and in history: agent messages and plans as
// agent text, reasoning as thoughts. (Compactions, and plans for clients with plan documents,
// are in display.ts. A review's result also arrives as an agent message, inline: the
// exitedReviewMode item's copy of it is not shown twice.)
//
// An agent message Codex moderated (0.171's `moderation.display`, "how Chat should present a
// recovered answer"): hidden, its replacement takes the answer's place; blocked, a notice naming
// the reason does; shown, the answer, with its annotation's note. The same live and in history,
// except that live the text may already have streamed: ACP cannot take a message back, so a
// notice says the answer above was withdrawn. Codex 0.171 sets `moderation` on stored answers
// (thread/read, thread/turns/list, thread/resume); a model stream's moderation metadata reaches
// the app-server only as the opaque turn/moderationMetadata, which is not shown.
import type { Item, ItemOf, SessionUpdate } from "./view.js";
import { noticeUpdate, type ClientDisplay, type NoticeSeverity } from "./display.js";
import type { v2 } from "../codex/index.js";

export type ItemText = { kind: "agent_message_chunk" | "agent_thought_chunk"; text: string };

/** Text of a completed text item; undefined for items that show none (or are tool calls). */
export function itemText(item: Item): ItemText | undefined {
  switch (item.type) {
    case "agentMessage":
    case "plan":
      return item.text ? { kind: "agent_message_chunk", text: item.text } : undefined;
    case "reasoning": {
      const text = item.summary.join("\n\n") || item.content.join("\n\n");
      return text ? { kind: "agent_thought_chunk", text } : undefined;
    }
    default:
      return undefined;
  }
}

// ---- moderated agent messages ----------------------------------------------------------------

/** Where support is, in general words: no numbers (they differ by country and must not be made up). */
const SUPPORT = "a crisis helpline or a support service where you live can listen and help.";
const HIDDEN = `This answer is hidden. If you're going through something difficult, you don't have to face it alone: ${SUPPORT}`;
const WITHDRAWN = "Codex withdrew the answer above.";

type Withheld = { severity: NoticeSeverity; title: string; more?: string };

/**
 * The updates of a completed agent message whose `moderation.display` is set, given how much of
 * its text the client has already been sent (`streamed` characters); undefined when it has none.
 */
export function moderatedMessage(
  item: ItemOf<"agentMessage">,
  display: ClientDisplay,
  streamed: number,
): SessionUpdate[] | undefined {
  const shown = item.moderation?.display;
  if (!shown) return undefined;
  const rest: SessionUpdate[] =
    item.text.length > streamed
      ? [
          {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: item.text.slice(streamed) },
            messageId: item.id,
          },
        ]
      : [];
  const withheld = withheldAnswer(shown);
  if (!withheld) {
    const note = annotationNote(shown);
    return note ? [...rest, notice(display, { severity: "info", title: note }, item.id)] : rest;
  }
  if (streamed > 0)
    return [
      notice(
        display,
        {
          severity: withheld.severity,
          title: WITHDRAWN,
          more: [withheld.title, withheld.more].filter(Boolean).join("\n"),
        },
        item.id,
      ),
    ];
  // A hidden answer's replacement is what Chat shows in its place: the message itself.
  if (shown.mode === "hide")
    return [
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: withheld.title }, messageId: item.id },
    ];
  return [notice(display, withheld, item.id)];
}

/** What stands for a hidden or blocked answer; undefined for one that is shown. */
function withheldAnswer(shown: v2.AgentMessageDisplay): Withheld | undefined {
  switch (shown.mode) {
    case "hide":
      // wellbeingPromptHelpline is 0.171's only replacement; a newer one is still a hidden answer.
      return { severity: "info", title: HIDDEN };
    case "block":
      return blockReason(shown.reason);
    default:
      // "show", or a mode this build does not know: the answer as Codex sent it.
      return undefined;
  }
}

function blockReason(reason: v2.BlockReason): Withheld {
  switch (reason.kind) {
    case "protection":
      return { severity: "warning", title: `This answer was blocked (protection: ${reason.protectionType}).` };
    case "cyber": {
      const access =
        reason.trustedAccess === undefined
          ? undefined
          : `Trusted access for cyber would ${reason.trustedAccess ? "" : "not "}allow it.`;
      return {
        severity: "warning",
        title: "This answer was withheld under the cyber safety policy.",
        ...(access ? { more: access } : {}),
      };
    }
    default:
      return { severity: "warning", title: "This answer was blocked." };
  }
}

/** The note a shown answer's annotation adds (0.171: a wellbeing helpline, about the answer or the prompt). */
function annotationNote(shown: v2.AgentMessageDisplay): string | undefined {
  if (shown.mode !== "show" || !shown.annotation) return undefined;
  return shown.annotation.subject === "prompt"
    ? `If you're going through something difficult, ${SUPPORT}`
    : `If this touches on something difficult for you, ${SUPPORT}`;
}

/** A notice about the message `itemId` (a card of that name for clients without notices: the same live and in history). */
function notice(display: ClientDisplay, { severity, title, more }: Withheld, itemId: string): SessionUpdate {
  return noticeUpdate(display, severity, title, more, `notice-${itemId}`);
}
