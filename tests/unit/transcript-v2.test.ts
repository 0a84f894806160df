// ACP v2 transcripts (issue 29): the version the transcript's `initialize` negotiated picks the
// schema every later message is checked against, v1 shapes are violations in a v2 session and v2
// shapes in a v1 one, and what differs per run in v2 (message ids, repeated state snapshots, the
// agent's `info.version`) does not fail a replay.
import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../../tools/transcripts/format.js";
import { IdMap, compareMessages, normaliseMessage } from "../../tools/transcripts/normalise.js";
import { loadAcpValidator, schemaVersionFor } from "../../tools/transcripts/schema.js";
import { matcherOver, type MatcherUnderTest } from "../support/replay-matcher.js";

type Json = Record<string, unknown>;
const rpc = (m: Json): Json => ({ jsonrpc: "2.0", ...m });
const update = (sessionId: string, u: Json): Json =>
  rpc({ method: "session/update", params: { sessionId, update: u } });

const v2 = {
  initialize: rpc({
    id: 0,
    method: "initialize",
    params: { protocolVersion: 2, info: { name: "client", version: "1.0.0" }, capabilities: {} },
  }),
  initialized: rpc({
    id: 0,
    result: { protocolVersion: 2, info: { name: "agent", version: "1.0.0" }, capabilities: {} },
  }),
  chunk: (sid: string, messageId: string, text: string) =>
    update(sid, { sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text } }),
  idle: (sid: string) => update(sid, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }),
  running: (sid: string) => update(sid, { sessionUpdate: "state_update", state: "running" }),
};
const v1Only = {
  toolCall: update("s", { sessionUpdate: "tool_call", toolCallId: "c", title: "Run" }),
  modeUpdate: update("s", { sessionUpdate: "current_mode_update", currentModeId: "ask" }),
  readFile: rpc({ id: 5, method: "fs/read_text_file", params: { sessionId: "s", path: "/w/a.txt" } }),
};

describe("schema per protocol version", () => {
  it("maps a negotiated protocol version to its schema", () => {
    expect(schemaVersionFor(1)).toBe(1);
    expect(schemaVersionFor(2)).toBe(2);
    expect(schemaVersionFor(3)).toBe(2);
    expect(schemaVersionFor(0)).toBe(1);
    expect(schemaVersionFor(undefined)).toBe(1);
  });

  it("v2 accepts v2 messages and reports the v1-only shapes", async () => {
    const v = await loadAcpValidator(2);
    expect(v.validate("client->agent", v2.initialize)).toEqual([]);
    expect(v.validate("agent->client", v2.initialized, "initialize")).toEqual([]);
    expect(v.validate("agent->client", v2.chunk("s", "m1", "hi"))).toEqual([]);
    expect(v.validate("agent->client", v2.idle("s"))).toEqual([]);
    expect(v.validate("agent->client", rpc({ id: 3, result: { messageId: "u1" } }), "session/prompt")).toEqual([]);
    // A v1 chunk has no messageId, which v2 requires.
    expect(
      v.validate(
        "agent->client",
        update("s", { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } }),
      ).length,
    ).toBeGreaterThan(0);
    // v2's catch-all admits unknown kinds; one that is not an `_` extension is reserved, so a v1 name is a violation.
    expect(v.validate("agent->client", v1Only.toolCall).map((x) => x.path)).toContain("$.params.update.sessionUpdate");
    expect(v.validate("agent->client", v1Only.modeUpdate).map((x) => x.path)).toContain(
      "$.params.update.sessionUpdate",
    );
    expect(v.validate("agent->client", update("s", { sessionUpdate: "_vendor_thing", anything: 1 }))).toEqual([]);
    expect(v.validate("agent->client", v1Only.readFile)[0]?.message).toMatch(
      /unknown ACP request method "fs\/read_text_file"/,
    );
  });

  it("v1 reports a v2 state_update and keeps accepting v1 shapes", async () => {
    const v = await loadAcpValidator(1);
    expect(v.validate("agent->client", v2.idle("s")).length).toBeGreaterThan(0);
    expect(v.validate("agent->client", v1Only.toolCall)).toEqual([]);
    expect(v.validate("agent->client", v1Only.modeUpdate)).toEqual([]);
    expect(v.validate("agent->client", v1Only.readFile)).toEqual([]);
  });
});

function transcriptOf(lines: Array<["client->agent" | "agent->client", Json]>): string {
  const header = {
    type: "header",
    version: 1,
    recordedAt: "2026-01-01T00:00:00Z",
    agent: { command: ["agent"] },
    protocolVersion: 2,
  };
  return [header, ...lines.map(([dir, msg]) => ({ type: "message", dir, t: 0, msg }))]
    .map((l) => JSON.stringify(l))
    .join("\n");
}

async function matcherFor(text: string): Promise<MatcherUnderTest & { clientLines: () => void }> {
  const under = await matcherOver(text, "v2.jsonl");
  const { matcher, transcript } = under;
  // What the runner does: each recorded client message goes out (and is checked) in order.
  const clientLines = () => {
    for (const e of transcript.entries) if (e.dir === "client->agent") matcher.liveClientMessage(e);
  };
  return { ...under, clientLines };
}
const live = (msg: Json): TranscriptEntry => ({ type: "message", dir: "agent->client", t: 0, msg });

describe("a v2 transcript in the matcher", () => {
  const session = rpc({ id: 1, method: "session/new", params: { cwd: "/w" } });
  const recorded = transcriptOf([
    ["client->agent", v2.initialize],
    ["agent->client", v2.initialized],
    ["client->agent", session],
    ["agent->client", rpc({ id: 1, result: { sessionId: "rec-s" } })],
    ["agent->client", v2.running("rec-s")],
    ["agent->client", v2.chunk("rec-s", "rec-m1", "Hello")],
    ["agent->client", v2.chunk("rec-s", "rec-m1", " there")],
    ["agent->client", v2.idle("rec-s")],
  ]);

  it("replays green with other session and message ids, the agent's version and a repeated snapshot", async () => {
    const { matcher, failures, clientLines } = await matcherFor(recorded);
    clientLines();
    matcher.onAgentEntry(
      live(rpc({ id: 0, result: { protocolVersion: 2, info: { name: "agent", version: "9.9.9" }, capabilities: {} } })),
    );
    matcher.onAgentEntry(live(rpc({ id: 1, result: { sessionId: "live-s" } })));
    matcher.onAgentEntry(live(v2.running("live-s")));
    // Snapshots are idempotent (ACP v2): one repeated by a slower run is not an extra message.
    matcher.onAgentEntry(live(v2.running("live-s")));
    matcher.onAgentEntry(live(v2.chunk("live-s", "live-m7", "Hello")));
    matcher.onAgentEntry(live(v2.chunk("live-s", "live-m7", " there")));
    matcher.onAgentEntry(live(v2.idle("live-s")));
    matcher.finish();
    expect(failures).toEqual([]);
  });

  it("reports a v1 tool_call as a schema violation once v2 is negotiated", async () => {
    const { matcher, failures, clientLines } = await matcherFor(recorded);
    clientLines();
    matcher.onAgentEntry(live(v2.initialized));
    matcher.onAgentEntry(live(rpc({ id: 1, result: { sessionId: "live-s" } })));
    matcher.onAgentEntry(live(update("live-s", { sessionUpdate: "tool_call", toolCallId: "c", title: "Run" })));
    expect(failures[0]).toMatchObject({ kind: "schema", path: "$.params.update.sessionUpdate" });
  });

  it("reports the chunks of one recorded message split over two live message ids", async () => {
    const { matcher, failures, clientLines } = await matcherFor(recorded);
    clientLines();
    matcher.onAgentEntry(live(v2.initialized));
    matcher.onAgentEntry(live(rpc({ id: 1, result: { sessionId: "live-s" } })));
    matcher.onAgentEntry(live(v2.running("live-s")));
    matcher.onAgentEntry(live(v2.chunk("live-s", "live-a", "Hello")));
    matcher.onAgentEntry(live(v2.chunk("live-s", "live-b", " there")));
    expect(failures[0]).toMatchObject({
      kind: "difference",
      path: "$.params.update.messageId",
      expected: "rec-m1",
      actual: "live-b",
    });
  });

  it("checks a client that asked for 2 against v1 when the agent answers 1", async () => {
    const v1Answer = rpc({ id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    const text = transcriptOf([
      ["client->agent", v2.initialize],
      ["agent->client", v1Answer],
      ["client->agent", rpc({ id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } })],
      ["agent->client", rpc({ id: 1, result: { sessionId: "s" } })],
    ]);
    const { matcher, failures, clientLines } = await matcherFor(text);
    clientLines();
    matcher.onAgentEntry(live(v1Answer));
    matcher.onAgentEntry(live(rpc({ id: 1, result: { sessionId: "s" } })));
    expect(failures).toEqual([]);
    matcher.onAgentEntry(live(v2.idle("s")));
    expect(failures[0]).toMatchObject({ kind: "schema" });
    expect(failures[0]?.summary).toContain("state_update");
  });
});

describe("v2 normalisation", () => {
  it("normalises the agent's info.version and maps plan ids like the other ids", () => {
    const rec = normaliseMessage({ result: { protocolVersion: 2, info: { name: "a", version: "1.0.0" } } }, {});
    const now = normaliseMessage({ result: { protocolVersion: 2, info: { name: "a", version: "2.0.0" } } }, {});
    expect(compareMessages(rec, now, new IdMap())).toBeNull();
    const plan = (planId: string) => ({ params: { update: { sessionUpdate: "plan_update", planId, entries: [] } } });
    const ids = new IdMap();
    expect(compareMessages(plan("p1"), plan("x1"), ids)).toBeNull();
    expect(compareMessages(plan("p1"), plan("x2"), ids)).toMatchObject({ path: "$.params.update.planId" });
  });
});
