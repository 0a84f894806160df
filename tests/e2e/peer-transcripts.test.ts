// The contract runner on agents it did not write: a transcript recorded from the official
// adapter with `record --fake-model` (scripts/record-peers.ts) replays green against it, and
// against codex-cli-acp reports every difference in one run. Our own agent recorded the same way
// replays green with no trace of the recording machine.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatReplayReport, replayTranscript } from "../../tools/transcripts/replay/index.js";
import { OFFICIAL_ENTRY } from "../peers/official.js";
import { ZED_BINARY } from "../peers/zed.js";
import { recordTextTurn } from "../support/record-session.js";

const OFFICIAL = path.resolve(import.meta.dirname, "../transcripts/peers/official.jsonl");
const installed = existsSync(OFFICIAL_ENTRY);

describe.skipIf(!installed)(
  "official adapter transcript (skipped when .bench/peers has no official adapter: npm run bench installs it)",
  () => {
    it("replays green against the official adapter it was recorded from", async () => {
      const result = await replayTranscript(OFFICIAL);
      expect(formatReplayReport(result)).toMatch(/^PASS /);
    });

    it("against codex-cli-acp, reports every difference in one run, the first in full", async () => {
      const result = await replayTranscript(OFFICIAL, { agentCommand: ["node", "dist/index.js"] });
      expect(result.ok).toBe(false);
      // Past the first difference: the session and the turn are compared too.
      const lines = new Set(result.mismatches.map((m) => m.line));
      expect(lines.size).toBeGreaterThanOrEqual(5);
      expect(result.mismatches.some((m) => m.summary.includes("session/prompt"))).toBe(true);
      const report = formatReplayReport(result);
      expect(report).toContain('expected: "@agentclientprotocol/codex-acp"');
      for (const m of result.mismatches.slice(1)) expect(report).toContain(m.summary);
    }, 60_000);
  },
);

const ZED = path.resolve(import.meta.dirname, "../transcripts/peers/zed.jsonl");

describe.skipIf(!existsSync(ZED_BINARY))(
  "Zed's adapter transcript (skipped when .bench/peers has no Zed adapter for this platform: npm run bench installs it)",
  () => {
    it("replays green against Zed's adapter, which must be stopped after EOF (--stop-after-eof)", async () => {
      const strict = await replayTranscript(ZED, { exitTimeoutMs: 1000 });
      expect(strict.mismatches).toEqual([expect.objectContaining({ kind: "agent-exit" })]);
      const result = await replayTranscript(ZED, { stopAfterEof: true, exitTimeoutMs: 1000 });
      expect(formatReplayReport(result)).toMatch(/^PASS /);
    }, 60_000);
  },
);

describe("record --fake-model", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "record-fake-model-"));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("writes the script into the header and this run's paths as placeholders; the transcript replays green", async () => {
    const out = path.join(dir, "ours.jsonl");
    await recordTextTurn(["node", "dist/index.js"], out, {
      responses: [{ items: [{ type: "message", text: "Recorded with the fake model.", deltas: 3 }] }],
    });
    const text = await readFile(out, "utf8");
    const header = JSON.parse(text.split("\n")[0]!) as {
      fakeModel?: unknown;
      agent: { command: string[]; cwd?: string };
      paths?: unknown;
    };
    expect(header.fakeModel).toEqual({
      responses: [{ items: [{ type: "message", text: "Recorded with the fake model.", deltas: 3 }] }],
    });
    expect(header.agent).toEqual({ command: ["node", "dist/index.js"] });
    expect(header.paths).toBeUndefined();
    expect(text).toContain('"cwd":"<CWD>"');
    expect(text).not.toMatch(/acp-replay-|127\.0\.0\.1:\d+/);
    const result = await replayTranscript(out);
    expect(formatReplayReport(result)).toMatch(/^PASS /);
  }, 60_000);
});
