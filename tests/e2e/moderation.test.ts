// Issue 50: Codex 0.171's display modes of a moderated answer, against the real codex.
// What 0.171 does (measured with the fake model): a model stream's `response.metadata` event with
// `openai_chatgpt_moderation_metadata` is relayed as `turn/moderationMetadata` (opaque JSON,
// whatever its shape) and never sets `moderation` on the live agentMessage; a stored answer's
// `moderation` (the rollout's AgentMessage item, "how Chat should present a recovered answer")
// comes back on thread/read, thread/turns/list and thread/resume. So: a turn with moderation
// metadata runs as any other, and a stored hidden or blocked answer loads as such, in v1 and v2.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import {
  createCodexHome,
  defaultCodexPath,
  startFakeModel,
  textResponse,
  type CodexHome,
  type FakeModel,
} from "../../tools/fake-model/index.js";
import { messageText, startAdapter, type Adapter } from "../support/adapter.js";
import { startV2Adapter, type V2Adapter } from "../support/adapter-v2.js";
import { makeStoredSession, primeStoredSession, type StoredSession } from "../support/stored-session.js";
import { v2Violations } from "../support/v2-schema.js";
import { waitFor } from "../support/wait-for.js";

const HIDDEN =
  "This answer is hidden. If you're going through something difficult, you don't have to face it alone: a crisis helpline or a support service where you live can listen and help.";
const BLOCKED = "This answer was blocked (protection: self_harm).";
const CYBER = "This answer was withheld under the cyber safety policy.";
const NOTE =
  "If this touches on something difficult for you, a crisis helpline or a support service where you live can listen and help.";

// Per stored turn: hidden, blocked (protection), blocked (cyber), shown with an annotation, not moderated.
const MODERATION: unknown[] = [
  { moderated: true, display: { mode: "hide", version: 1, replacement: { kind: "wellbeingPromptHelpline" } } },
  {
    moderated: true,
    display: { mode: "block", version: 1, reason: { kind: "protection", protectionType: "self_harm" } },
  },
  { moderated: true, display: { mode: "block", version: 1, reason: { kind: "cyber", trustedAccess: false } } },
  {
    moderated: true,
    display: {
      mode: "show",
      version: 1,
      annotation: { kind: "wellbeingHelpline", subject: "answer" },
      trustedContacts: "check",
    },
  },
  undefined,
];
const answerOf = (t: number) => new RegExp(`^Turn ${t + 1} done: `);

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

describe("a turn whose model stream carries moderation metadata (turn/moderationMetadata)", () => {
  it("runs as any other: the answer is shown as it is, nothing else is, and the next turn runs", async () => {
    const metadata = {
      openai_chatgpt_moderation_metadata: {
        display: { mode: "hide", version: 1, replacement: { kind: "wellbeingPromptHelpline" } },
      },
    };
    adapter = await startAdapter({
      responses: [{ ...textResponse("The answer stays."), metadata }, textResponse("second")],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "first")).stopReason).toBe("end_turn");
    const updates = adapter.updatesOf(sessionId);
    expect(messageText(updates)).toBe("The answer stays.");
    expect(updates.filter((u) => u.sessionUpdate === "notice" || u.sessionUpdate === "tool_call")).toEqual([]);
    expect((await adapter.prompt(sessionId, "again")).stopReason).toBe("end_turn");
    expect(messageText(adapter.updatesOf(sessionId))).toBe("The answer stays.second");
    expect(adapter.stderr()).not.toMatch(/moderationMetadata/);
  });
});

describe("stored answers Codex moderated", () => {
  let fake: FakeModel;
  let home: CodexHome;
  let workspace: string;
  let stored: StoredSession;
  let v2Adapter: V2Adapter | undefined;

  beforeAll(async () => {
    fake = await startFakeModel([]);
    home = await createCodexHome({ modelUrl: fake.url });
    workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-moderation-")));
    stored = await makeStoredSession({
      codexHome: home.codexHome,
      cwd: workspace,
      turns: MODERATION.length,
      outputBytes: 100,
      moderation: (t) => MODERATION[t],
    });
    await primeStoredSession({
      codexPath: defaultCodexPath(),
      env: { ...process.env, ...home.env },
      threadId: stored.threadId,
    });
  }, 120_000);

  afterAll(async () => {
    const violations = v2Adapter ? await v2Violations(v2Adapter.stdoutLines) : [];
    await v2Adapter?.close();
    await fake?.close();
    await home?.cleanup();
    if (workspace) await rm(workspace, { recursive: true, force: true });
    expect(violations).toEqual([]);
  });

  const textOf = (u: object): string => {
    const c = (u as { content?: { type?: string; text?: string } }).content;
    return c?.type === "text" ? (c.text ?? "") : "";
  };

  it("load (v1) hidden as the replacement and blocked as a notice naming the reason, never their text; the others as they are", async () => {
    adapter = await startAdapter({ fake, home, workspace });
    await adapter.initialize();
    await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId: stored.threadId,
      cwd: workspace,
      mcpServers: [],
    });
    const updates = adapter.updatesOf(stored.threadId);
    const answers = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map(textOf);
    expect(answers).toHaveLength(3);
    expect(answers[0]).toBe(HIDDEN);
    expect(answers[1]).toMatch(answerOf(3));
    expect(answers[2]).toMatch(answerOf(4));
    const notices = updates.filter(
      (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "notice" }> => u.sessionUpdate === "notice",
    );
    expect(notices.map((n) => [n.severity, n.title, n.description])).toEqual([
      ["warning", BLOCKED, undefined],
      ["warning", CYBER, "Trusted access for cyber would not allow it."],
      ["info", NOTE, undefined],
    ]);
    // The withheld answers' text reaches the client nowhere.
    const everything = JSON.stringify(updates);
    for (const t of [0, 1, 2]) expect(everything).not.toContain(`Turn ${t + 1} done:`);
    // In its turn's place: the annotated answer's note follows it.
    const order = updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "notice")
      .map((u) => (u.sessionUpdate === "notice" ? u.title : textOf(u)));
    expect(order.indexOf(NOTE)).toBe(order.findIndex((s) => answerOf(3).test(s)) + 1);
  });

  it("resume with replay (v2): the same, in v2's shapes", async () => {
    v2Adapter = await startV2Adapter({ fake, home, workspace });
    await v2Adapter.initialize();
    const a = v2Adapter;
    await a.agent.request("session/resume", {
      sessionId: stored.threadId,
      cwd: workspace,
      replayFrom: { type: "start" },
    });
    await waitFor(
      () => a.updatesOf(stored.threadId).some((u) => u.sessionUpdate === "state_update"),
      "the resumed session's state",
    );
    const updates = a.updatesOf(stored.threadId);
    const answers = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map(textOf);
    expect(answers[0]).toBe(HIDDEN);
    expect(answers).toHaveLength(3);
    const notices = updates
      .filter((u): u is Extract<v2.SessionUpdate, { sessionUpdate: "notice" }> => u.sessionUpdate === "notice")
      .map((n) => n.title);
    expect(notices).toEqual([BLOCKED, CYBER, NOTE]);
    const everything = JSON.stringify(updates);
    for (const t of [0, 1, 2]) expect(everything).not.toContain(`Turn ${t + 1} done:`);
  });
});
