// Secrets at rest (issue 26), end to end: `record` as an editor starts it, with an API key, MCP
// servers' credentials and a file served from an editor buffer going through it. By default none
// of them reaches the file, which only its owner can read; a replay of the redacted file gives the
// agent the workspace's file when it has the recorded digest, and says so when it cannot.
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTranscript, serializeTranscript } from "../../tools/transcripts/format.js";
import { formatReplayReport, replayTranscript } from "../../tools/transcripts/replay/index.js";

const repo = path.resolve(import.meta.dirname, "../..");
const ECHO = ["node", "--import", "tsx", "tests/support/echo-agent.ts"];
const CLI = [process.execPath, "--import", "tsx", "tools/transcripts/cli-main.ts"];

const API_KEY = "sk-proj-e2e-0123456789-APIKEY";
const GH_TOKEN = "ghp_e2e0123456789GHTOKEN";
const BEARER = "Bearer e2e-0123456789-BEARER";
const BUFFER = "the editor's unsaved buffer: BUFFER-SECRET\n";
const CREDENTIALS = [API_KEY, GH_TOKEN, BEARER];

let dir: string;
let workspace: string;

/** Records one session (authenticate, session/new with MCP servers, a file read from the editor) into `out`. */
async function recordSession(out: string, extraArgs: string[] = []): Promise<void> {
  const filePath = path.join(workspace, "hello.txt");
  const child = spawn(CLI[0]!, [...CLI.slice(1), "record", "--out", out, ...extraArgs, "--", ...ECHO], {
    cwd: repo,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  await acp
    .client({ name: "secrets-test-client" })
    .onRequest(acp.methods.client.fs.readTextFile, () => ({ content: BUFFER }))
    .onNotification(acp.methods.client.session.update, () => undefined)
    .connectWith(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
      async (ctx) => {
        await ctx.request(acp.methods.agent.initialize, {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
        });
        // The echo agent has no authenticate: the request is recorded, its error too.
        await ctx
          .request(acp.methods.agent.authenticate, {
            methodId: "openai-api-key",
            _meta: { "api-key": { apiKey: API_KEY } },
          })
          .catch(() => undefined);
        const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
          cwd: workspace,
          mcpServers: [
            { name: "gh", command: "gh-mcp", args: [], env: [{ name: "GITHUB_TOKEN", value: GH_TOKEN }] },
            {
              type: "http",
              name: "api",
              url: "https://mcp.example/x",
              headers: [{ name: "Authorization", value: BEARER }],
            },
          ],
        });
        await ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: `read ${filePath}` }],
        });
      },
    );
  child.stdin.end();
  expect(await exit).toBe(0);
}

let redacted: string;
let kept: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "transcript-secrets-"));
  workspace = path.join(dir, "project");
  redacted = path.join(dir, "redacted.jsonl");
  kept = path.join(dir, "kept.jsonl");
  // Files someone else could read are there first: the transcript must not inherit their mode.
  for (const f of [redacted, `${redacted}.tmp`, kept]) {
    await writeFile(f, "old\n");
    await chmod(f, 0o644);
  }
  await recordSession(redacted);
  await recordSession(kept, ["--keep-secrets"]);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("record, by default", () => {
  it("writes no credential and no served file content, keeping every key and the header's mark", async () => {
    const text = await readFile(redacted, "utf8");
    for (const secret of CREDENTIALS) expect(text).not.toContain(secret);
    const t = parseTranscript(text, redacted);
    expect(t.header.redacted).toBe(true);
    // What the agent itself says is the conversation, kept: here the echo agent quotes the file
    // ("content: ..."), as a model may quote what it read. Nothing else holds the buffer.
    const holding = t.entries.filter((e) => JSON.stringify(e).includes("BUFFER-SECRET"));
    expect(
      holding.map((e) =>
        e.type === "message" ? (e.msg.params as { update?: { sessionUpdate?: string } }).update?.sessionUpdate : e.type,
      ),
    ).toEqual(["agent_message_chunk"]);
    expect(text).toContain('"_meta":{"api-key":{"apiKey":"[redacted]"}}');
    expect(text).toContain('{"name":"GITHUB_TOKEN","value":"[redacted]"}');
    expect(text).toContain('{"name":"Authorization","value":"[redacted]"}');
    expect(text).toMatch(/"result":\{"content":"\[redacted file content: \d+ bytes, 1 line, sha256 [0-9a-f]{64}\]"\}/);
  });

  it("creates the file for its owner only (0600), even over a file and a temp file that were there", async () => {
    expect((await stat(redacted)).mode & 0o777).toBe(0o600);
    expect((await stat(kept)).mode & 0o777).toBe(0o600);
  });

  it("a replay says it cannot give the agent what the editor served", async () => {
    const result = await replayTranscript(redacted);
    expect(result.ok).toBe(false);
    expect(result.mismatches[0]).toMatchObject({ kind: "redacted" });
    expect(formatReplayReport(result)).toContain("--keep-secrets");
  });

  it("a replay passes when the workspace it seeds has the served file (the digest says it is the same)", async () => {
    const t = parseTranscript(await readFile(redacted, "utf8"), redacted);
    const seeded = path.join(dir, "seeded.jsonl");
    await writeFile(
      seeded,
      serializeTranscript({ ...t.header, workspace: { files: { "hello.txt": BUFFER } } }, t.entries),
    );
    const result = await replayTranscript(seeded);
    expect(result.mismatches, formatReplayReport(result)).toEqual([]);
    expect(result.ok).toBe(true);

    // --update writes what the live run said, redacted again: the served buffer does not come back.
    await chmod(seeded, 0o644);
    expect((await replayTranscript(seeded, { update: true })).updated).toBe(true);
    const updated = parseTranscript(await readFile(seeded, "utf8"), seeded);
    expect(updated.header.redacted).toBe(true);
    const answers = updated.entries.filter(
      (e) => e.type === "message" && e.dir === "client->agent" && "result" in e.msg,
    );
    expect(JSON.stringify(answers)).toMatch(
      /"content":"\[redacted file content: \d+ bytes, 1 line, sha256 [0-9a-f]{64}\]"/,
    );
    expect(JSON.stringify(answers)).not.toContain("BUFFER-SECRET");
    expect((await stat(seeded)).mode & 0o777).toBe(0o600);
  });
});

describe("record --keep-secrets", () => {
  it("keeps everything as it went over the wire, and replays faithfully", async () => {
    const text = await readFile(kept, "utf8");
    for (const secret of [...CREDENTIALS, BUFFER]) expect(text).toContain(JSON.stringify(secret).slice(1, -1));
    expect(parseTranscript(text, kept).header.redacted).toBeUndefined();
    const result = await replayTranscript(kept);
    expect(result.mismatches, formatReplayReport(result)).toEqual([]);
  });
});
