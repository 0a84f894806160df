// The replay matcher on its own (no processes, no timers): fed live agent entries, it matches
// them with a recording, reports differences, answers agent requests from the recording and
// says what never came.
import { describe, expect, it } from "vitest";
import { parseTranscript, type TranscriptEntry } from "../../tools/transcripts/format.js";
import { matcherOver } from "../support/replay-matcher.js";

const header = {
  type: "header",
  version: 1,
  recordedAt: "2026-11-23T00:00:00Z",
  agent: { command: ["agent"] },
  protocolVersion: 1,
};
const msg = (dir: "client->agent" | "agent->client", m: Record<string, unknown>) => ({
  type: "message",
  dir,
  t: 0,
  msg: { jsonrpc: "2.0", ...m },
});
const recording = [
  header,
  msg("client->agent", { id: 0, method: "session/new", params: { cwd: "/w", mcpServers: [] } }),
  msg("agent->client", { id: 0, result: { sessionId: "rec-s" } }),
  msg("agent->client", {
    method: "session/update",
    params: {
      sessionId: "rec-s",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
    },
  }),
  msg("agent->client", {
    id: 7,
    method: "session/request_permission",
    params: {
      sessionId: "rec-s",
      toolCall: { toolCallId: "c" },
      options: [{ optionId: "a", name: "Allow", kind: "allow_once" }],
    },
  }),
  msg("client->agent", { id: 7, result: { outcome: { outcome: "selected", optionId: "a" } } }),
  msg("agent->client", {
    method: "session/update",
    params: {
      sessionId: "rec-s",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "bye" } },
    },
  }),
]
  .map((l) => JSON.stringify(l))
  .join("\n");

const setup = () => matcherOver(recording, "t.jsonl");
const live = (m: Record<string, unknown>): TranscriptEntry => ({
  type: "message",
  dir: "agent->client",
  t: 0,
  msg: { jsonrpc: "2.0", ...m },
});

describe("replay matcher", () => {
  it("matches a live session with other ids, answers the agent's request from the recording, and reports a difference with its path", async () => {
    const { matcher, failures, sent } = await setup();
    const first = parseTranscript(recording, "t.jsonl").entries[0]!;
    expect(matcher.liveClientMessage(first).line).toContain('"session/new"');
    // A notification for a session not yet learnt is held, then matched once session/new answers.
    matcher.onAgentEntry(
      live({
        method: "session/update",
        params: {
          sessionId: "live-s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
        },
      }),
    );
    matcher.onAgentEntry(live({ id: 0, result: { sessionId: "live-s" } }));
    expect(failures).toEqual([]);
    matcher.onAgentEntry(
      live({
        id: 99,
        method: "session/request_permission",
        params: {
          sessionId: "live-s",
          toolCall: { toolCallId: "c" },
          options: [{ optionId: "a", name: "Allow", kind: "allow_once" }],
        },
      }),
    );
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 99, result: { outcome: { outcome: "selected", optionId: "a" } } }]);
    matcher.onAgentEntry(
      live({
        method: "session/update",
        params: {
          sessionId: "live-s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "BYE" } },
        },
      }),
    );
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      kind: "difference",
      path: "$.params.update.content.text",
      expected: "bye",
      actual: "BYE",
      line: 7,
    });
  });

  it("reports what never came, and what the recording does not have", async () => {
    const { matcher, failures } = await setup();
    matcher.onAgentEntry(live({ id: 0, result: { sessionId: "s" } }));
    matcher.onAgentEntry(
      live({
        method: "session/update",
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
        },
      }),
    );
    matcher.onAgentEntry(
      live({
        method: "session/update",
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "bye" } },
        },
      }),
    );
    matcher.onAgentEntry(
      live({
        method: "session/update",
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "extra" } },
        },
      }),
    );
    matcher.finish();
    expect(failures.map((f) => f.kind)).toEqual(["unexpected", "missing"]);
    expect(failures[1]?.summary).toContain(
      "missing agent->client request session/request_permission (recording line 5)",
    );
  });
});
