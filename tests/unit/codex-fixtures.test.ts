// The bridge's mapping on messages recorded from the real codex (tests/fixtures/codex, made by
// scripts/record-codex-fixtures.ts): one fixture per kind of item and notification the bridge
// handles. The live notifications and the stored history of the same turn must fold to the same
// final state (text per message, thoughts, each tool call's title, kind, status and content);
// the folded live state is kept as a file snapshot.
import fs from "node:fs";
import path from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { replayTurns } from "../../src/bridge/history.js";
import { ThreadEventTranslator } from "../../src/bridge/translator.js";
import { note } from "../support/codex-messages.js";

const DIR = path.resolve(import.meta.dirname, "../fixtures/codex");
const fixtures = fs.readdirSync(DIR).filter((f) => f.endsWith(".json"));

/** Tool calls only the live side can show: Codex stores no item for them (a native apply_patch it rejected). */
const LIVE_ONLY: Record<string, string[]> = { "native-patch-rejected.json": ["call_native"] };

type Fixture = { notifications: Array<{ method: string; params: Record<string, unknown> }>; turns: unknown[] };
type Folded = {
  messages: Record<string, string>;
  thoughts: Record<string, string>;
  toolCalls: Record<string, { title?: string; kind?: string; status?: string; content?: unknown; locations?: unknown }>;
  plan?: unknown;
};

/** What a client holds once every update arrived. */
function fold(updates: SessionUpdate[]): Folded {
  const out: Folded = { messages: {}, thoughts: {}, toolCalls: {} };
  for (const u of updates) {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const bucket = u.sessionUpdate === "agent_message_chunk" ? out.messages : out.thoughts;
        const id = u.messageId ?? "(none)";
        bucket[id] = (bucket[id] ?? "") + (u.content.type === "text" ? u.content.text : "");
        break;
      }
      case "tool_call":
      case "tool_call_update": {
        const call = (out.toolCalls[u.toolCallId] ??= {});
        if (u.title != null) call.title = u.title;
        if (u.kind != null) call.kind = u.kind;
        if (u.status != null) call.status = u.status;
        if (u.content != null) call.content = u.content;
        if (u.locations != null) call.locations = u.locations;
        break;
      }
      case "plan":
        out.plan = u.entries;
        break;
      default:
        break;
    }
  }
  return out;
}

describe.each(fixtures)("recorded codex messages: %s", (file) => {
  // The recorder wrote the run's workspace as <WS>; any absolute path stands for it here.
  const fixture = JSON.parse(fs.readFileSync(path.join(DIR, file), "utf8").replaceAll("<WS>", "/ws")) as Fixture;

  it("live and history fold to the same state; the live state is as recorded", async () => {
    const unknown: string[] = [];
    const t = new ThreadEventTranslator({ cwd: () => "/ws", onUnknown: (what) => unknown.push(what) });
    const live = fold(fixture.notifications.flatMap((n) => t.translate(note(n.method, n.params))));
    const skipped: string[] = [];
    const history = fold(replayTurns(fixture.turns, { cwd: "/ws", onSkip: (reason) => skipped.push(reason) }));
    expect(unknown).toEqual([]);
    expect(skipped).toEqual([]);
    expect(history.messages).toEqual(live.messages);
    expect(history.thoughts).toEqual(live.thoughts);
    const liveStored = Object.fromEntries(
      Object.entries(live.toolCalls).filter(([id]) => !(LIVE_ONLY[file] ?? []).includes(id)),
    );
    for (const id of LIVE_ONLY[file] ?? []) expect(live.toolCalls[id], `${id} is shown live`).toBeDefined();
    expect(history.toolCalls).toEqual(liveStored);
    expect(Object.keys(live.messages).length + Object.keys(live.toolCalls).length).toBeGreaterThan(0);
    await expect(`${JSON.stringify(live, null, 2)}\n`).toMatchFileSnapshot(`__snapshots__/codex-fixtures/${file}`);
  });
});
