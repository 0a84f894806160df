// Codex 0.171's display modes of a moderated agent message (`moderation.display`): hidden, the
// client sees the replacement (a pointer to support, no made-up numbers) instead of the answer;
// blocked, a notice naming the reason instead of it; shown with an annotation, the answer and the
// annotation's note. Live (the text may already have streamed: ACP cannot take it back, so a
// notice says it was withdrawn) and in history (session/load). Every message here passes the
// validators generated from 0.171's schema, so the shapes are the ones Codex sends.
import { describe, expect, it } from "vitest";
import { ThreadEventTranslator, replayTurns, type ClientDisplay, type Item } from "../../src/bridge/index.js";
import {
  notificationValidators,
  resultValidators,
  type ValidationIssue,
} from "../../src/codex/generated/validators.js";
import type { v2 } from "../../src/codex/index.js";
import { note } from "../support/codex-messages.js";

const ANSWER = "Here is what you asked for.";
const HIDDEN =
  "This answer is hidden. If you're going through something difficult, you don't have to face it alone: a crisis helpline or a support service where you live can listen and help.";
const WITHDRAWN = "Codex withdrew the answer above.";

/** An agent message exactly as 0.171 sends it, with this display. */
function agentMessage(display: v2.AgentMessageDisplay | null, id = "msg_1"): Item {
  return {
    type: "agentMessage",
    id,
    text: ANSWER,
    phase: null,
    memoryCitation: null,
    delivery: null,
    questions: null,
    moderation: { moderated: display !== null, display },
    startedAtMs: 1,
    completedAtMs: 2,
  };
}

const hide: v2.AgentMessageDisplay = { mode: "hide", version: 1, replacement: { kind: "wellbeingPromptHelpline" } };
const protection: v2.AgentMessageDisplay = {
  mode: "block",
  version: 1,
  reason: { kind: "protection", protectionType: "self_harm" },
};
const cyber = (trustedAccess?: boolean): v2.AgentMessageDisplay => ({
  mode: "block",
  version: 1,
  reason: { kind: "cyber", ...(trustedAccess === undefined ? {} : { trustedAccess }) },
});
const annotated: v2.AgentMessageDisplay = {
  mode: "show",
  version: 1,
  annotation: { kind: "wellbeingHelpline", subject: "answer" },
  trustedContacts: "check",
};
const plainShow: v2.AgentMessageDisplay = { mode: "show", version: 1, trustedContacts: "skip" };

/** item/completed as 0.171 sends it, checked by the generated validator. */
function completed(item: Item) {
  const n = {
    method: "item/completed",
    params: { item, threadId: "t", turnId: "u", contentTokenCount: null, completedAtMs: 2 },
  };
  const issues: ValidationIssue[] = [];
  expect(notificationValidators["item/completed"](n, issues), JSON.stringify(issues)).toBe(true);
  return note(n.method, n.params);
}

/** A stored turn with this answer, as thread/turns/list returns it (checked by the generated validator). */
function storedTurns(items: Item[]): unknown[] {
  const user = {
    type: "userMessage",
    id: "u1",
    clientId: null,
    content: [{ type: "text", text: "hi", text_elements: [] }],
  };
  const turns = [
    {
      id: "u",
      rootTurnId: "u",
      items: [user, ...items],
      itemsView: "full",
      status: "completed",
      error: null,
      startedAt: 1,
      completedAt: 2,
      durationMs: 1,
    },
  ];
  const issues: ValidationIssue[] = [];
  expect(
    resultValidators["thread/turns/list"]({ data: turns, nextCursor: null, backwardsCursor: null }, issues),
    JSON.stringify(issues),
  ).toBe(true);
  return turns;
}

const notices: ClientDisplay = { notices: true };
const translator = (display: ClientDisplay = notices) => new ThreadEventTranslator({ display: () => display });
const delta = (text: string) =>
  note("item/agentMessage/delta", { threadId: "t", turnId: "u", itemId: "msg_1", delta: text });
const chunk = (text: string) => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
  messageId: "msg_1",
});
const replayed = (display: v2.AgentMessageDisplay | null, shows: ClientDisplay = notices) =>
  replayTurns(storedTurns([agentMessage(display)]), { display: shows }).slice(1);

describe("a hidden answer (mode hide, replacement wellbeingPromptHelpline)", () => {
  it("in history is the replacement in the answer's place, never the answer", () => {
    expect(replayed(hide)).toEqual([chunk(HIDDEN)]);
  });
  it("live, completed before any of it streamed, is the replacement alone", () => {
    expect(translator().translate(completed(agentMessage(hide)))).toEqual([chunk(HIDDEN)]);
  });
  it("live, after its text streamed, is a notice that the answer above was withdrawn, with the replacement", () => {
    const t = translator();
    expect(t.translate(delta(ANSWER))).toEqual([chunk(ANSWER)]);
    expect(t.translate(completed(agentMessage(hide)))).toEqual([
      { sessionUpdate: "notice", severity: "info", title: WITHDRAWN, description: HIDDEN },
    ]);
  });
});

describe("a blocked answer", () => {
  it("in history is a notice naming the protection, never the answer", () => {
    expect(replayed(protection)).toEqual([
      { sessionUpdate: "notice", severity: "warning", title: "This answer was blocked (protection: self_harm)." },
    ]);
  });
  it("under the cyber policy says so, and whether trusted access would allow it", () => {
    const title = "This answer was withheld under the cyber safety policy.";
    expect(replayed(cyber(true))).toEqual([
      { sessionUpdate: "notice", severity: "warning", title, description: "Trusted access for cyber would allow it." },
    ]);
    expect(replayed(cyber(false))).toEqual([
      {
        sessionUpdate: "notice",
        severity: "warning",
        title,
        description: "Trusted access for cyber would not allow it.",
      },
    ]);
    expect(replayed(cyber())).toEqual([{ sessionUpdate: "notice", severity: "warning", title }]);
  });
  it("live, after its text streamed, is a notice that the answer above was withdrawn, with the reason", () => {
    const t = translator();
    t.translate(delta("Here is "));
    expect(t.translate(completed(agentMessage(protection)))).toEqual([
      {
        sessionUpdate: "notice",
        severity: "warning",
        title: WITHDRAWN,
        description: "This answer was blocked (protection: self_harm).",
      },
    ]);
  });
  it("live, completed before any of it streamed, is the notice alone", () => {
    expect(translator().translate(completed(agentMessage(cyber(false))))).toEqual([
      {
        sessionUpdate: "notice",
        severity: "warning",
        title: "This answer was withheld under the cyber safety policy.",
        description: "Trusted access for cyber would not allow it.",
      },
    ]);
  });
  it("for a client without notices is a finished card of its own (the same live and in history), never agent text", () => {
    const card = {
      sessionUpdate: "tool_call",
      toolCallId: "notice-msg_1",
      title: "Warning: This answer was blocked (protection: self_harm).",
      kind: "other",
      status: "completed",
      content: [],
    };
    expect(replayed(protection, {})).toEqual([card]);
    expect(translator({}).translate(completed(agentMessage(protection)))).toEqual([card]);
  });
});

describe("a shown answer", () => {
  const NOTE =
    "If this touches on something difficult for you, a crisis helpline or a support service where you live can listen and help.";
  it("with a wellbeing annotation keeps its text and adds the annotation's note, live and in history", () => {
    expect(replayed(annotated)).toEqual([chunk(ANSWER), { sessionUpdate: "notice", severity: "info", title: NOTE }]);
    const t = translator();
    t.translate(delta(ANSWER));
    expect(t.translate(completed(agentMessage(annotated)))).toEqual([
      { sessionUpdate: "notice", severity: "info", title: NOTE },
    ]);
  });
  it("without an annotation, or not moderated, is the answer as it is", () => {
    expect(replayed(plainShow)).toEqual([chunk(ANSWER)]);
    expect(replayed(null)).toEqual([chunk(ANSWER)]);
    const t = translator();
    t.translate(delta("Here is "));
    expect(t.translate(completed(agentMessage(plainShow)))).toEqual([chunk("what you asked for.")]);
  });
});
