// Replaying a redacted transcript (issue 26): the markers `record` leaves (redact.ts) match the
// live values they stand for, and an editor's answer it left out is served from this run's files.
import { describe, expect, it } from "vitest";
import { parseTranscript, type TranscriptEntry } from "../../tools/transcripts/format.js";
import { compareMessages, IdMap } from "../../tools/transcripts/normalise.js";
import { fileContentMarkerOf, SECRET_MARKER } from "../../tools/transcripts/redaction/redaction-marker.js";
import { Matcher } from "../../tools/transcripts/replay/matcher.js";
import { RecordingIndex } from "../../tools/transcripts/replay/recording.js";
import type { Mismatch } from "../../tools/transcripts/replay/types.js";
import { loadAcpValidators } from "../../tools/transcripts/schema.js";

type Json = Record<string, unknown>;
const client = (msg: Json): TranscriptEntry => ({
  type: "message",
  dir: "client->agent",
  t: 0,
  msg: { jsonrpc: "2.0", ...msg },
});
const agent = (msg: Json): TranscriptEntry => ({
  type: "message",
  dir: "agent->client",
  t: 0,
  msg: { jsonrpc: "2.0", ...msg },
});

describe("comparing with a redacted recording", () => {
  it("a content marker matches the live text with that digest, and only it", () => {
    const marker = fileContentMarkerOf("rewritten\n", "rewritten\n");
    expect(
      compareMessages({ params: { content: marker } }, { params: { content: "rewritten\n" } }, new IdMap()),
    ).toBeNull();
    expect(
      compareMessages({ params: { content: marker } }, { params: { content: "other\n" } }, new IdMap()),
    ).toMatchObject({ path: "$.params.content" });
  });

  it("the secret marker stands for any value, also inside a longer text", () => {
    expect(compareMessages({ k: SECRET_MARKER }, { k: "whatever" }, new IdMap())).toBeNull();
    expect(
      compareMessages({ m: `invalid key ${SECRET_MARKER} given` }, { m: "invalid key sk-1 given" }, new IdMap()),
    ).toBeNull();
    expect(
      compareMessages({ m: `invalid key ${SECRET_MARKER} given` }, { m: "invalid key sk-1 refused" }, new IdMap()),
    ).toMatchObject({ path: "$.m" });
  });
});

describe("replaying a redacted answer of the editor", () => {
  const marker = fileContentMarkerOf("seeded\n", "seeded\n");
  const recording = (content: string): string =>
    [
      {
        type: "header",
        version: 1,
        recordedAt: "2026-11-23T00:00:00Z",
        agent: { command: ["agent"] },
        protocolVersion: 1,
        redacted: true,
      },
      client({ id: 0, method: "session/new", params: { cwd: "/w", mcpServers: [] } }),
      agent({ id: 0, result: { sessionId: "s" } }),
      agent({ id: 5, method: "fs/read_text_file", params: { sessionId: "s", path: "/w/a.txt" } }),
      client({ id: 5, result: { content } }),
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");

  async function matcherFor(
    text: string,
    knownFileContents: string[],
  ): Promise<{ matcher: Matcher; failures: Mismatch[]; sent: Json[] }> {
    const failures: Mismatch[] = [];
    const sent: Json[] = [];
    const matcher = new Matcher({
      recording: new RecordingIndex(parseTranscript(text, "r.jsonl")),
      validators: await loadAcpValidators(),
      recordedPlaceholders: {},
      livePlaceholders: {},
      knownFileContents,
      fail: (m) => failures.push(m),
      send: (m) => sent.push(m),
      aborted: () => false,
    });
    matcher.onAgentEntry(agent({ id: 0, result: { sessionId: "live" } }));
    return { matcher, failures, sent };
  }

  it("is answered with the workspace's file that has the recorded digest", async () => {
    const { matcher, failures, sent } = await matcherFor(recording(marker), ["other\n", "seeded\n"]);
    matcher.onAgentEntry(
      agent({ id: 9, method: "fs/read_text_file", params: { sessionId: "live", path: "/w/a.txt" } }),
    );
    expect(failures).toEqual([]);
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 9, result: { content: "seeded\n" } }]);
  });

  it("is answered with what the agent wrote earlier in the run, when that has the digest", async () => {
    const { matcher, failures, sent } = await matcherFor(recording(marker), []);
    matcher.onAgentEntry(
      agent({
        id: 8,
        method: "fs/write_text_file",
        params: { sessionId: "live", path: "/w/a.txt", content: "seeded\n" },
      }),
    );
    matcher.onAgentEntry(
      agent({ id: 9, method: "fs/read_text_file", params: { sessionId: "live", path: "/w/a.txt" } }),
    );
    expect(sent.at(-1)).toEqual({ jsonrpc: "2.0", id: 9, result: { content: "seeded\n" } });
    expect(failures.filter((f) => f.kind === "redacted")).toEqual([]);
  });

  it("otherwise is sent as recorded, and the replay says why it cannot be faithful", async () => {
    const { matcher, failures, sent } = await matcherFor(recording(marker), ["other\n"]);
    matcher.onAgentEntry(
      agent({ id: 9, method: "fs/read_text_file", params: { sessionId: "live", path: "/w/a.txt" } }),
    );
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 9, result: { content: marker } }]);
    expect(failures).toEqual([expect.objectContaining({ kind: "redacted", line: 5 })]);
    expect(failures[0]?.summary).toMatch(/fs\/read_text_file.*redacted.*--keep-secrets/);
  });
});
