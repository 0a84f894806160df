// The golden transcripts (tests/transcripts/*.jsonl, one per capability of the adapter) replayed
// against the bundled adapter (dist/index.js, built by the global setup) with the fake model of
// each header. A failure prints the runner's report: the first difference with its JSON path,
// expected and actual values, both normalised messages and the agent's last stderr lines.
// How to add or refresh a golden: tests/transcripts/README.md.
import { readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTranscript, serializeTranscript } from "../../tools/transcripts/format.js";
import { replayTranscript } from "../../tools/transcripts/index.js";
import { redactTranscript } from "../../tools/transcripts/redaction/redact.js";
import { formatReplayReport } from "../../tools/transcripts/replay/index.js";

const repo = path.resolve(import.meta.dirname, "../..");
const GOLDEN_DIR = path.join(repo, "tests/transcripts");
// Listed synchronously: vitest needs the cases at collection time.
const goldens = readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "golden-test-"));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe("golden transcripts", () => {
  it("there is one per capability", () => {
    expect(goldens.length).toBeGreaterThanOrEqual(7);
    for (const name of [
      "handshake",
      "text-turn",
      "cancel",
      "file-tools-editor",
      "file-tools-local",
      "command-approval",
      "patch-approval",
      "load",
    ]) {
      expect(goldens).toContain(`${name}.jsonl`);
    }
  });

  for (const name of goldens) {
    it(`replays ${name}`, async () => {
      // Relative agent commands (`node dist/index.js`) resolve against the working directory.
      expect(process.cwd()).toBe(repo);
      const result = await replayTranscript(path.join("tests/transcripts", name));
      // The whole report (first difference with its path and values) is the failure message.
      expect(result.ok, formatReplayReport(result)).toBe(true);
      expect(result.mismatches).toEqual([]);
    });
  }
});

describe("a golden edited in one field fails and names that field", () => {
  it("changed agent_message_chunk text -> FAIL at $.params.update.content.text", async () => {
    const source = path.join(GOLDEN_DIR, "text-turn.jsonl");
    const t = parseTranscript(await readFile(source, "utf8"), source);
    let edited = false;
    const entries = t.entries.map(({ line: _line, ...e }) => {
      if (edited || e.type !== "message" || e.dir !== "agent->client" || e.msg.method !== "session/update") return e;
      const update = (e.msg.params as { update: { sessionUpdate: string; content?: { text?: string } } }).update;
      if (update.sessionUpdate !== "agent_message_chunk" || typeof update.content?.text !== "string") return e;
      edited = true;
      const msg = structuredClone(e.msg) as typeof e.msg & { params: { update: { content: { text: string } } } };
      msg.params.update.content.text = "Goodbye";
      return { ...e, msg };
    });
    expect(edited).toBe(true);
    const copy = path.join(tmp, "text-turn-edited.jsonl");
    await writeFile(copy, [JSON.stringify(t.header), ...entries.map((e) => JSON.stringify(e))].join("\n") + "\n");

    const result = await replayTranscript(copy, { agentCommand: ["node", path.join(repo, "dist/index.js")] });
    const report = formatReplayReport(result);
    expect(result.ok).toBe(false);
    expect(result.mismatches[0]).toMatchObject({
      kind: "difference",
      path: "$.params.update.content.text",
      expected: "Goodbye",
      actual: "Hello ther",
    });
    expect(report).toMatch(/^FAIL /);
    expect(report).toContain("differs at $.params.update.content.text");
    expect(report).toContain('expected: "Goodbye"');
  });
});

describe("a golden redacted as `record` writes it by default", () => {
  it("replays green when the run has the editor's buffer: reads, writes and their echoes compare by digest", async () => {
    const source = path.join(GOLDEN_DIR, "file-tools-editor.jsonl");
    const golden = await readFile(source, "utf8");
    const t = parseTranscript(golden, source);
    // The line where the editor answers the read with its buffer (found, not counted: a re-recording moves it).
    const bufferLine = golden.split("\n").findIndex((line) => line.includes('"content":"unsaved buffer')) + 1;
    expect(bufferLine).toBeGreaterThan(0);
    const entries = redactTranscript(t.entries, {});
    const text = serializeTranscript({ ...t.header, redacted: true }, entries);
    // What the editor served and what the agent wrote (the script in the header aside).
    expect(JSON.stringify(entries)).not.toMatch(/unsaved buffer|rewritten/);
    const agentCommand = ["node", path.join(repo, "dist/index.js")];

    // The buffer differs from the disk (notes.txt: "on disk"): nothing in the run has it.
    const unseeded = path.join(tmp, "file-tools-editor-redacted.jsonl");
    await writeFile(unseeded, text);
    const blind = await replayTranscript(unseeded, { agentCommand });
    expect(blind.ok).toBe(false);
    expect(blind.mismatches[0]).toMatchObject({ kind: "redacted", line: bufferLine });

    // A seeded file with the buffer's content (any name: the digest finds it) is served instead.
    const seeded = path.join(tmp, "file-tools-editor-redacted-seeded.jsonl");
    const files = { ...t.header.workspace?.files, "buffer-copy.txt": "unsaved buffer\n" };
    await writeFile(seeded, serializeTranscript({ ...t.header, redacted: true, workspace: { files } }, entries));
    const result = await replayTranscript(seeded, { agentCommand });
    expect(result.mismatches, formatReplayReport(result)).toEqual([]);
  });
});
