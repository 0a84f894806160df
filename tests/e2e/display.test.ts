// Issue 12, visibility: what the client declares it can show (notices, compactions, plan
// documents) decides how Codex's warnings, compactions and proposed plans reach it, against the
// real codex and the fake model. Without a capability the same information is agent text.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { rawUpdatesOf, startAdapter, type Adapter } from "../support/adapter.js";
import type { ScriptedResponse } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const say = (text: string): ScriptedResponse => ({ items: [{ type: "message", text }] });
const PROPOSED_PLAN = "<proposed_plan>\n# Add a cache\n1. Measure.\n2. Cache the lookups.\n</proposed_plan>";

function agentText(updates: ReadonlyArray<Record<string, unknown>>): string {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => (u.content as { text?: string }).text ?? "")
    .join("");
}

async function planModeSession(a: Adapter, caps: acp.ClientCapabilities & { plan?: object }): Promise<string> {
  await a.initialize(caps);
  const { sessionId } = await a.newSession();
  await a.agent.request(acp.methods.agent.session.setConfigOption, {
    sessionId,
    configId: "collaboration_mode",
    value: "plan",
  });
  return sessionId;
}

describe("proposed plans", () => {
  it("are plan_update markdown documents for a client that declares plan support", async () => {
    adapter = await startAdapter({ responses: [say(PROPOSED_PLAN)] });
    const sessionId = await planModeSession(adapter, { plan: {} });
    expect((await adapter.prompt(sessionId, "plan a cache")).stopReason).toBe("end_turn");
    const updates = rawUpdatesOf(adapter, sessionId);
    const docs = updates.filter((u) => u.sessionUpdate === "plan_update");
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.at(-1)).toEqual({
      sessionUpdate: "plan_update",
      plan: {
        type: "markdown",
        planId: expect.any(String),
        content: "# Add a cache\n1. Measure.\n2. Cache the lookups.\n",
      },
    });
    // One plan, not repeated as text.
    expect(new Set(docs.map((d) => (d.plan as { planId: string }).planId)).size).toBe(1);
    expect(agentText(updates)).not.toContain("Cache the lookups");
  });

  it("are agent text for a client without it", async () => {
    adapter = await startAdapter({ responses: [say(PROPOSED_PLAN)] });
    const sessionId = await planModeSession(adapter, {});
    await adapter.prompt(sessionId, "plan a cache");
    const updates = rawUpdatesOf(adapter, sessionId);
    expect(updates.some((u) => u.sessionUpdate === "plan_update")).toBe(false);
    expect(agentText(updates)).toContain("2. Cache the lookups.");
  });
});

describe("compactions", () => {
  const responses = [say("hello"), say("SUMMARY")];
  it("/compact is a compaction_update that goes in_progress then completed for a client that declares compaction", async () => {
    adapter = await startAdapter({ responses });
    await adapter.initialize({ session: { compaction: {} } });
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "hi");
    expect((await adapter.prompt(sessionId, "/compact")).stopReason).toBe("end_turn");
    const compactions = rawUpdatesOf(adapter, sessionId).filter((u) => u.sessionUpdate === "compaction_update");
    expect(compactions.map((u) => u.status)).toEqual(["in_progress", "completed"]);
    expect(compactions[0]!.compactionId).toBe(compactions[1]!.compactionId);
    expect(agentText(rawUpdatesOf(adapter, sessionId))).not.toContain("Context compacted.");
  });
});

describe("Codex's warnings that belong to no session", () => {
  // An unknown setting makes Codex send a configWarning when it starts (before any session).
  const extraConfig = "no_such_setting_for_the_test = true";
  const ignoring = /unrecognized configuration setting/;

  it("are a notice, once, in the first turn that runs after them", async () => {
    adapter = await startAdapter({ responses: [say("one"), say("two"), say("three")], extraConfig });
    await adapter.initialize({ session: { notices: {} } });
    const first = (await adapter.newSession()).sessionId;
    const second = (await adapter.newSession()).sessionId;
    await adapter.prompt(first, "a");
    await adapter.prompt(first, "b");
    await adapter.prompt(second, "c");
    const notices = [...rawUpdatesOf(adapter, first), ...rawUpdatesOf(adapter, second)].filter(
      (u) => u.sessionUpdate === "notice" && ignoring.test(String(u.title)),
    );
    expect(notices).toEqual([
      {
        sessionUpdate: "notice",
        severity: "warning",
        title: expect.stringMatching(
          /^Codex configuration: Codex is ignoring 1 unrecognized configuration setting\b[^\n]*$/,
        ),
        description: expect.stringContaining("no_such_setting_for_the_test"),
      },
    ]);
    // Before the turn's own output.
    const firstUpdates = rawUpdatesOf(adapter, first);
    expect(firstUpdates.findIndex((u) => u.sessionUpdate === "notice")).toBeLessThan(
      firstUpdates.findIndex((u) => u.sessionUpdate === "agent_message_chunk"),
    );
  });

  it("are a card of their own, once, for a client without notices: never part of the answer's text", async () => {
    adapter = await startAdapter({ responses: [say("one"), say("two")], extraConfig });
    await adapter.initialize({ session: {} });
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "a");
    await adapter.prompt(sessionId, "b");
    const updates = rawUpdatesOf(adapter, sessionId);
    expect(agentText(updates)).toBe("onetwo");
    const cards = updates.filter((u) => u.sessionUpdate === "tool_call" && ignoring.test(String(u.title)));
    expect(cards).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: expect.stringMatching(/^notice-/),
        title: expect.stringMatching(/^Warning: Codex configuration: /),
        kind: "other",
        status: "completed",
        content: [
          { type: "content", content: { type: "text", text: expect.stringContaining("no_such_setting_for_the_test") } },
        ],
      },
    ]);
  });
});

describe("Codex's notice that bubblewrap is not on PATH (issue 49: noise that asks nothing of the user)", () => {
  // Codex then uses its bundled bwrap: nothing to do, so no card in the first session of every
  // agent process (in acpx, every run); the log keeps it at info.
  const bwrapOnPath = (process.env.PATH ?? "")
    .split(path.delimiter)
    .some((dir) => dir && existsSync(path.join(dir, "bwrap")));
  it.skipIf(process.platform !== "linux" || bwrapOnPath)(
    "is logged, not shown: no card, no notice, no text; other warnings still are",
    async () => {
      adapter = await startAdapter({ responses: [say("one")], extraConfig: "no_such_setting_for_the_test = true" });
      await adapter.initialize({ session: {} });
      const { sessionId } = await adapter.newSession();
      await adapter.prompt(sessionId, "a");
      const updates = rawUpdatesOf(adapter, sessionId);
      expect(JSON.stringify(updates)).not.toMatch(/bubblewrap/i);
      expect(updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.title)).toEqual([
        expect.stringMatching(/unrecognized configuration setting/),
      ]);
      const logged = adapter
        .stderr()
        .split("\n")
        .filter((line) => /bubblewrap/i.test(line) && line.includes('"msg":"codex noted'));
      expect(logged.length, adapter.stderr()).toBe(1);
      expect(logged[0]).toContain('"level":30');
    },
  );
});
