// The transcript runner against this adapter (dist/index.js, built by the global setup) with the
// real codex and the fake model named in the header: a hand-written transcript is filled in by
// --update, then replays deterministically.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseTranscript } from "../../tools/transcripts/format.js";
import { formatReplayReport, replayTranscript } from "../../tools/transcripts/replay/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "transcript-codex-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Notices: a warning about this machine is then a notice, which replay ignores (Codex's bubblewrap
// notice is only logged).
const caps = { fs: { readTextFile: true, writeTextFile: true }, session: { notices: {} } };
const lines = [
  {
    type: "header",
    version: 1,
    agent: { command: ["node", "dist/index.js"] },
    protocolVersion: 1,
    clientCapabilities: caps,
    fakeModel: { responses: [{ items: [{ type: "message", text: "Hello from the fake model" }] }] },
    recordedAt: "2025-01-01T00:00:00.000Z",
  },
  {
    type: "message",
    dir: "client->agent",
    t: 0,
    msg: { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: caps } },
  },
  { type: "message", dir: "agent->client", t: 1, msg: { jsonrpc: "2.0", id: 0, result: {} } },
  {
    type: "message",
    dir: "client->agent",
    t: 2,
    msg: { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "<CWD>", mcpServers: [] } },
  },
  { type: "message", dir: "agent->client", t: 3, msg: { jsonrpc: "2.0", id: 1, result: {} } },
  {
    type: "message",
    dir: "client->agent",
    t: 4,
    msg: {
      jsonrpc: "2.0",
      id: 2,
      method: "session/prompt",
      params: { sessionId: "S", prompt: [{ type: "text", text: "hi" }] },
    },
  },
  { type: "message", dir: "agent->client", t: 5, msg: { jsonrpc: "2.0", id: 2, result: { stopReason: "end_turn" } } },
];

it("fills a hand-written codex-cli-acp transcript with --update, then replays it with the fake model", async () => {
  const file = path.join(dir, "hello.jsonl");
  await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");

  const updated = await replayTranscript(file, { update: true });
  expect(formatReplayReport(updated)).toMatch(/^UPDATED /);
  const t = parseTranscript(await readFile(file, "utf8"), file);
  const text = t.entries
    .flatMap((e) => {
      if (e.type !== "message" || e.msg.method !== "session/update") return [];
      const u = (e.msg.params as { update: { sessionUpdate: string; content?: { text?: string } } }).update;
      return u.sessionUpdate === "agent_message_chunk" ? [u.content?.text ?? ""] : [];
    })
    .join("");
  expect(text).toBe("Hello from the fake model");
  expect(t.header.fakeModel).toEqual(lines[0]!.fakeModel);

  const again = await replayTranscript(file);
  expect(formatReplayReport(again)).toMatch(/^PASS /);
  expect(again.ok).toBe(true);
});
