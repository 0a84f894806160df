import { describe, expect, it } from "vitest";
import { parseTranscript, serializeTranscript, TranscriptFormatError } from "../../tools/transcripts/format.js";
import {
  compareMessages,
  IdMap,
  JSONRPC_ID,
  normaliseMessage,
  normaliseValues,
  pathsToPlaceholders,
  placeholdersToPaths,
} from "../../tools/transcripts/normalise.js";
import { entryForLine } from "../../tools/transcripts/record.js";
import { loadAcpValidator } from "../../tools/transcripts/schema.js";
import { parseReplayArgs, parseRecordArgs } from "../../tools/transcripts/cli.js";

const header = JSON.stringify({
  type: "header",
  version: 1,
  agent: { command: ["node", "agent.js"] },
  protocolVersion: 1,
  recordedAt: "2025-01-01T00:00:00.000Z",
});
const init = JSON.stringify({
  type: "message",
  dir: "client->agent",
  t: 0,
  msg: { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } },
});

function errorOf(fn: () => unknown): TranscriptFormatError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TranscriptFormatError);
    return error as TranscriptFormatError;
  }
  throw new Error("expected a TranscriptFormatError");
}

describe("parseTranscript", () => {
  it("parses a header and entries, keeping line numbers", () => {
    const raw = JSON.stringify({ type: "raw", dir: "agent->client", t: 3, text: "oops" });
    const t = parseTranscript(`${header}\n${init}\n${raw}\n`, "a.jsonl");
    expect(t.header.agent.command).toEqual(["node", "agent.js"]);
    expect(t.entries).toHaveLength(2);
    expect(t.entries[0]).toMatchObject({ type: "message", line: 2 });
    expect(t.entries[1]).toMatchObject({ type: "raw", text: "oops", line: 3 });
  });

  it("names the file and line of a line that is not JSON", () => {
    const e = errorOf(() => parseTranscript(`${header}\n${init}\n{not json\n`, "dir/bad.jsonl"));
    expect(e.file).toBe("dir/bad.jsonl");
    expect(e.line).toBe(3);
    expect(e.message).toMatch(/^dir\/bad\.jsonl:3: not valid JSON/);
  });

  it("names the file and line of an entry that does not match the schema", () => {
    const bad = JSON.stringify({ type: "message", dir: "sideways", t: 1, msg: {} });
    const e = errorOf(() => parseTranscript(`${header}\n${init}\n${init}\n${bad}`, "x.jsonl"));
    expect(e.line).toBe(4);
    expect(e.message).toContain("x.jsonl:4:");
    expect(e.message).toContain("dir");
  });

  it("rejects a bad header on line 1 and a blank line in the middle", () => {
    expect(errorOf(() => parseTranscript(`${init}\n`, "h.jsonl")).message).toMatch(/^h\.jsonl:1: invalid header/);
    const noCommand = JSON.stringify({ ...JSON.parse(header), agent: { command: [] } });
    expect(errorOf(() => parseTranscript(`${noCommand}\n`, "h.jsonl")).line).toBe(1);
    expect(errorOf(() => parseTranscript(`${header}\n\n${init}\n`, "b.jsonl")).line).toBe(2);
    expect(errorOf(() => parseTranscript("", "e.jsonl")).message).toContain("e.jsonl:1");
  });

  it("round-trips through serializeTranscript", () => {
    const t = parseTranscript(`${header}\n${init}\n`, "a.jsonl");
    expect(serializeTranscript(t.header, t.entries)).toBe(`${header}\n${init}\n`);
  });
});

describe("recorded lines", () => {
  it("records non-JSON as raw and skips blank lines", () => {
    expect(entryForLine("agent->client", 1, "not json")).toEqual({
      type: "raw",
      dir: "agent->client",
      t: 1,
      text: "not json",
    });
    expect(entryForLine("agent->client", 1, "[1]")).toMatchObject({ type: "raw" });
    expect(entryForLine("agent->client", 1, "  ")).toBeNull();
  });
});

describe("normalisation", () => {
  it("replaces run paths with placeholders, longest first and only whole", () => {
    const out = pathsToPlaceholders(
      {
        cwd: "/tmp/run/ws",
        file: "/tmp/run/ws/a.txt",
        other: "/tmp/run/wsx",
        tmp: "/tmp/run/t/1",
        text: "see /tmp/run/ws.",
      },
      { "<CWD>": "/tmp/run/ws", "<TMP>": ["/tmp/run/t", "/private/tmp/run/t"] },
    );
    expect(out).toEqual({
      cwd: "<CWD>",
      file: "<CWD>/a.txt",
      other: "/tmp/run/wsx",
      tmp: "<TMP>/1",
      text: "see <CWD>.",
    });
    expect(placeholdersToPaths({ cwd: "<CWD>/x" }, { "<CWD>": ["/w", "/real/w"] })).toEqual({ cwd: "/w/x" });
  });

  it("normalises timestamps, durations and the agent's version, and nothing else", () => {
    const msg = {
      result: {
        agentInfo: { name: "a", version: "1.2.3" },
        clientInfo: { version: "kept" },
        when: "2025-03-04T05:06:07.890Z",
        updatedAt: 1700000000,
        durationMs: 12,
        elapsed: 3,
        usage: { input_tokens: 100 },
        text: "at 2025-03-04T05:06:07Z",
      },
    };
    expect(normaliseValues(msg)).toEqual({
      result: {
        agentInfo: { name: "a", version: "<VERSION>" },
        clientInfo: { version: "kept" },
        when: "<TIMESTAMP>",
        updatedAt: "<TIME>",
        durationMs: "<DURATION>",
        elapsed: "<DURATION>",
        usage: { input_tokens: 100 },
        text: "at 2025-03-04T05:06:07Z",
      },
    });
  });

  it("maps ids recorded -> live by first appearance and catches inconsistent renaming", () => {
    const ids = new IdMap();
    const rec = (sid: string, tc: string) => ({ params: { sessionId: sid, update: { toolCallId: tc } } });
    expect(compareMessages(rec("s1", "t1"), rec("L1", "x1"), ids)).toBeNull();
    expect(compareMessages(rec("s1", "t1"), rec("L1", "x1"), ids)).toBeNull();
    // the same recorded tool call now appears under another live id
    const d = compareMessages(rec("s1", "t1"), rec("L1", "x2"), ids);
    expect(d).toMatchObject({ path: "$.params.update.toolCallId", expected: "t1", actual: "x2" });
    // a new recorded id cannot take a live id that is already bound
    expect(compareMessages(rec("s1", "t2"), rec("L1", "x1"), ids)?.reason).toMatch(/already stands for/);
    expect(ids.toLive("sessionId", "s1")).toBe("L1");
    expect(ids.recordedToLive({ params: { sessionId: "s1", cwd: "s1" } })).toEqual({
      params: { sessionId: "L1", cwd: "s1" },
    });
  });

  it("maps the JSON-RPC id of agent requests only when asked to", () => {
    const ids = new IdMap();
    expect(
      compareMessages({ id: 0, method: "m" }, { id: 7, method: "m" }, ids, { topLevelIdCategory: JSONRPC_ID }),
    ).toBeNull();
    expect(compareMessages({ id: 0 }, { id: 7 }, new IdMap())).toMatchObject({ path: "$.id", expected: 0, actual: 7 });
  });

  it("reports the first difference with its JSON path", () => {
    const ids = new IdMap();
    expect(compareMessages({ a: [1, { b: "x" }] }, { a: [1, { b: "y" }] }, ids)).toEqual({
      path: "$.a[1].b",
      expected: "x",
      actual: "y",
    });
    expect(compareMessages({ a: [1] }, { a: [1, 2] }, ids)).toMatchObject({
      path: "$.a[1]",
      expected: undefined,
      actual: 2,
    });
    expect(compareMessages({ a: 1, b: 2 }, { a: 1 }, ids)).toMatchObject({ path: "$.b", reason: "missing field" });
    expect(compareMessages({ a: 1 }, { a: 1, "x-y": 2 }, ids)).toMatchObject({
      path: '$["x-y"]',
      reason: "unexpected field",
    });
    const live = normaliseMessage({ p: "/run/ws/f", at: "2024-01-01T00:00:00Z" }, { "<CWD>": "/run/ws" });
    const recorded = normaliseMessage(
      { p: "/home/me/proj/f", at: "2020-05-05T10:00:00Z" },
      { "<CWD>": "/home/me/proj" },
    );
    expect(compareMessages(recorded, live, ids)).toBeNull();
  });
});

describe("ACP schema validation", () => {
  it("accepts valid messages in each direction and picks the definition by method", async () => {
    const v = await loadAcpValidator();
    expect(
      v.validate("client->agent", { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } }),
    ).toEqual([]);
    expect(
      v.validate("agent->client", { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1 } }, "initialize"),
    ).toEqual([]);
    expect(
      v.validate("agent->client", {
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
        },
      }),
    ).toEqual([]);
    expect(
      v.validate("agent->client", { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }),
    ).toEqual([]);
  });

  it("knows ACP's unstable methods, which agents advertise (a transcript of this agent uses session/set_title, session/status, session/fork...)", async () => {
    const v = await loadAcpValidator();
    expect(
      v.validate("client->agent", {
        jsonrpc: "2.0",
        id: 1,
        method: "session/set_title",
        params: { sessionId: "s", title: "t" },
      }),
    ).toEqual([]);
    expect(
      v.validate("client->agent", {
        jsonrpc: "2.0",
        id: 2,
        method: "session/fork",
        params: { sessionId: "s", cwd: "/w", mcpServers: [] },
      }),
    ).toEqual([]);
    expect(
      v.validate("client->agent", { jsonrpc: "2.0", id: 3, method: "session/set_title", params: { sessionId: "s" } })
        .length,
    ).toBeGreaterThan(0);
  });

  it("reports violations with a JSON path", async () => {
    const v = await loadAcpValidator();
    const bad = v.validate(
      "agent->client",
      { jsonrpc: "2.0", id: 3, result: { stopReason: "bogus" } },
      "session/prompt",
    );
    expect(bad.map((x) => x.path)).toContain("$.result.stopReason");
    expect(
      v.validate("client->agent", { jsonrpc: "2.0", id: 1, method: "session/new", params: { mcpServers: [] } }).length,
    ).toBeGreaterThan(0);
    expect(
      v.validate("client->agent", { jsonrpc: "2.0", id: 1, method: "fs/read_text_file", params: {} })[0]?.message,
    ).toMatch(/unknown ACP request method/);
    expect(v.validate("agent->client", { jsonrpc: "1.0", id: 1, result: {} })[0]?.path).toBe("$.jsonrpc");
    expect(
      v
        .validate("agent->client", { jsonrpc: "2.0", id: 1, error: { message: "no code" } })
        .some((x) => x.path.startsWith("$.error")),
    ).toBe(true);
  });
});

describe("CLI arguments", () => {
  it("parses record and replay", () => {
    expect(parseRecordArgs(["--out", "f.jsonl", "--", "node", "a.js"])).toEqual({
      out: "f.jsonl",
      command: ["node", "a.js"],
    });
    expect(() => parseRecordArgs(["--", "node"])).toThrow(/--out FILE is required/);
    expect(() => parseRecordArgs(["--out", "f"])).toThrow(/agent command/);
    expect(parseReplayArgs(["a", "b", "--update", "--agent", "--", "node", "x.js", "--flag"])).toEqual({
      files: ["a", "b"],
      update: true,
      trust: false, // what a file names runs only when asked
      agentCommand: ["node", "x.js", "--flag"],
    });
    expect(() => parseReplayArgs([])).toThrow(/FILE/);
    expect(() => parseReplayArgs(["a", "--agent", "node"])).toThrow(/--agent must be followed by "--"/);
    expect(() => parseReplayArgs(["--bogus", "a"])).toThrow(/unknown option/);
  });
});
