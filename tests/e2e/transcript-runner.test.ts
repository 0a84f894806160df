// The transcript runner end to end: record a real ACP session through `record` (a real SDK client
// on one side, the echo agent on the other), then replay it against live agents.
import * as acp from "@agentclientprotocol/sdk";
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTranscript, type TranscriptEntry } from "../../tools/transcripts/format.js";
import { runRecorder } from "../../tools/transcripts/record.js";
import { formatReplayReport, replayTranscript } from "../../tools/transcripts/replay/index.js";
import { runProcess, type ProcessResult } from "../support/run-process.js";

const repo = path.resolve(import.meta.dirname, "../..");
const ECHO = ["node", "--import", "tsx", "tests/support/echo-agent.ts"];
const CLI = [process.execPath, "--import", "tsx", "tools/transcripts/cli-main.ts"];

let dir: string;
let recording: string;
let workspace: string;
let rawAgentStdout: Buffer;
const seen = { texts: [] as string[], permission: "", stopReasons: [] as string[] };

function runCli(args: string[]): Promise<ProcessResult> {
  return runProcess(CLI[0]!, [...CLI.slice(1), ...args], { cwd: repo });
}

async function editedCopy(name: string, edit: (entries: TranscriptEntry[]) => void): Promise<string> {
  const t = parseTranscript(await readFile(recording, "utf8"), recording);
  edit(t.entries);
  const file = path.join(dir, name);
  const lines = [JSON.stringify(t.header), ...t.entries.map(({ line: _l, ...e }) => JSON.stringify(e))];
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

function firstChunk(entries: TranscriptEntry[]): { text: string } {
  for (const e of entries) {
    if (e.type !== "message" || e.dir !== "agent->client" || e.msg.method !== "session/update") continue;
    const update = (e.msg.params as { update: { sessionUpdate: string; content?: { text: string } } }).update;
    if (update.sessionUpdate === "agent_message_chunk" && update.content) return update.content;
  }
  throw new Error("no agent_message_chunk in the recording");
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "transcript-e2e-"));
  workspace = path.join(dir, "project");
  recording = path.join(dir, "echo.jsonl");
  const filePath = path.join(workspace, "hello.txt");

  // `record` exactly as an editor would start it: our stdio is the editor's side of the pipe.
  // --keep-secrets: the replays below give the echo agent the editor's buffer again, which a
  // redacted recording leaves out (the default: tests/e2e/transcript-secrets.test.ts).
  const child = spawn(CLI[0]!, [...CLI.slice(1), "record", "--out", recording, "--keep-secrets", "--", ...ECHO], {
    cwd: repo,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const chunks: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => chunks.push(c));
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));

  await acp
    .client({ name: "transcript-test-client" })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      expect(params.path).toBe(filePath);
      return { content: "hello from the editor buffer" };
    })
    .onRequest(acp.methods.client.session.requestPermission, () => ({
      outcome: { outcome: "selected", optionId: "allow" },
    }))
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text") {
        seen.texts.push(params.update.content.text);
      }
    })
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
        const session = await ctx.buildSession(workspace).start();
        for (const prompt of ["hi", `read ${filePath}`, "ask tool"]) {
          const res = await session.prompt(prompt);
          seen.stopReasons.push(res.stopReason);
        }
      },
    );
  child.stdin.end();
  expect(await exit).toBe(0);
  rawAgentStdout = Buffer.concat(chunks);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("record", () => {
  it("proxies a working session and writes a valid transcript of it", async () => {
    // The client worked through the proxy.
    expect(seen.stopReasons).toEqual(["end_turn", "end_turn", "end_turn"]);
    expect(seen.texts).toContain("content: hello from the editor buffer");
    expect(seen.texts).toContain("permission: allow");

    const t = parseTranscript(await readFile(recording, "utf8"), recording);
    expect(t.header.agent.command).toEqual(ECHO);
    expect(t.header.protocolVersion).toBe(1);
    expect(t.header.clientCapabilities).toEqual({ fs: { readTextFile: true, writeTextFile: false } });
    expect(t.header.paths).toEqual({ "<CWD>": workspace });
    const methods = t.entries.flatMap((e) =>
      e.type === "message" && typeof e.msg.method === "string" ? [`${e.dir} ${e.msg.method}`] : [],
    );
    expect(methods).toContain("client->agent initialize");
    expect(methods).toContain("agent->client fs/read_text_file");
    expect(methods).toContain("agent->client session/request_permission");

    // Every line the agent wrote reached the client unchanged, and is in the transcript.
    const lines = rawAgentStdout
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== "");
    const recorded = t.entries.filter((e) => e.dir === "agent->client");
    expect(recorded.map((e) => (e.type === "message" ? JSON.stringify(e.msg) : e.text))).toEqual(lines);
    const times = t.entries.map((e) => e.t);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it("forwards bytes unchanged, including non-JSON, CRLF and split multi-byte characters", async () => {
    const out = path.join(dir, "bytes.jsonl");
    const agentBytes = 'noise \u00e9\u4e2d\r\n{"jsonrpc":"2.0","method":"x/y",  "params":{}}\npartial';
    const script = `process.stdin.on("data",()=>{});process.stdin.on("end",()=>{process.stdout.write(Buffer.from(${JSON.stringify(
      Buffer.from(agentBytes).toString("base64"),
    )},"base64"),()=>process.exit(3))})`;
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const got: Buffer[] = [];
    stdout.on("data", (c: Buffer) => got.push(c));
    const done = runRecorder({
      out,
      command: [process.execPath, "-e", script],
      stdin,
      stdout,
      stderr: new PassThrough(),
    });
    stdin.end(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"terminal":true}}}\nnot json\n',
    );
    expect(await done).toBe(3); // the agent's exit code
    expect(Buffer.concat(got).equals(Buffer.from(agentBytes))).toBe(true);
    const t = parseTranscript(await readFile(out, "utf8"), out);
    expect(t.header.clientCapabilities).toEqual({ terminal: true });
    expect(t.entries.map((e) => (e.type === "raw" ? `${e.dir} raw ${e.text}` : `${e.dir} msg`))).toEqual([
      "client->agent msg",
      "client->agent raw not json",
      "agent->client raw noise \u00e9\u4e2d",
      "agent->client msg",
      "agent->client raw partial",
    ]);
  });

  it("--fake-model keeps the agent in the hermetic home whatever the caller's env says, and removes it after", async () => {
    const out = path.join(dir, "hermetic.jsonl");
    const script = `process.stdin.resume();process.stdin.on("end",()=>{process.stderr.write("HOME_IS " + process.env.CODEX_HOME + "\\n");process.exit(0)})`;
    const stdin = new PassThrough();
    const stderr = new PassThrough();
    let said = "";
    stderr.on("data", (c: Buffer) => (said += c.toString()));
    const done = runRecorder({
      out,
      command: [process.execPath, "-e", script],
      stdin,
      stdout: new PassThrough(),
      stderr,
      env: { ...process.env, CODEX_HOME: "/the/callers/own/codex-home", CCA_MARK: "kept" },
      fakeModel: { responses: [] },
    });
    stdin.end();
    expect(await done).toBe(0);
    const home = /HOME_IS (\S+)/.exec(said)?.[1];
    const workspace = /workspace (\S+) \(the session's cwd\)/.exec(said)?.[1];
    expect(home).toBeDefined();
    expect(home).not.toBe("/the/callers/own/codex-home");
    expect(path.dirname(path.dirname(home!))).toBe(path.dirname(workspace!));
    await expect(readFile(path.join(home!, "config.toml"), "utf8")).rejects.toMatchObject({ code: "ENOENT" }); // disposed
  });
});

/** A transcript of one initialize answered, for an agent given as a `node -e` script. */
async function initializeOnly(name: string, agent: string): Promise<string> {
  const file = path.join(dir, name);
  const lines = [
    {
      type: "header",
      version: 1,
      agent: { command: ["node", "-e", agent] },
      protocolVersion: 1,
      recordedAt: new Date().toISOString(),
    },
    {
      type: "message",
      dir: "client->agent",
      t: 0,
      msg: { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } },
    },
    { type: "message", dir: "agent->client", t: 1, msg: { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1 } } },
  ];
  await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n"));
  return file;
}

/** An agent that answers initialize and exits on EOF, leaving `marker` behind (holding $REPLAY_MARK): proof it ran, and with what. */
const markingAgent = (marker: string): string =>
  `require("node:fs").writeFileSync(${JSON.stringify(marker)}, process.env.REPLAY_MARK ?? "ran");let b="";process.stdin.on("data",d=>{b+=d;let i;while((i=b.indexOf("\\n"))>=0){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:m.id,result:{protocolVersion:1}})+"\\n")}});`;

/** A transcript file whose header is `header` over initializeOnly's. */
async function withHeader(name: string, agent: string, header: Record<string, unknown>): Promise<string> {
  const file = await initializeOnly(name, agent);
  const [first, ...rest] = (await readFile(file, "utf8")).split("\n");
  await writeFile(file, [JSON.stringify({ ...JSON.parse(first!), ...header }), ...rest].join("\n"));
  return file;
}

describe("record when something goes wrong", () => {
  const INIT = JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {} },
  });
  const answerInit = `process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:0,result:{protocolVersion:1,agentCapabilities:{}}})+"\\n")`;
  const quiet = () => ({ stdout: new PassThrough(), stderr: new PassThrough() });

  it("a credential of the recorder's own environment, echoed by the agent (a printenv in a tool's output), is not written", async () => {
    const token = "ghp_FROMTHEENVIRONMENT0123";
    const agent = `process.stdin.once("data",()=>{${answerInit};process.stdout.write(JSON.stringify({jsonrpc:"2.0",method:"session/update",params:{sessionId:"s",update:{sessionUpdate:"tool_call_update",toolCallId:"c",rawOutput:{stdout:"GITHUB_TOKEN="+process.env.GITHUB_TOKEN}}}})+"\\n");process.exit(0)})`;
    const out = path.join(dir, "env-echo.jsonl");
    const stdin = new PassThrough();
    const done = runRecorder({
      out,
      command: [process.execPath, "-e", agent],
      stdin,
      ...quiet(),
      env: { ...process.env, GITHUB_TOKEN: token },
    });
    stdin.write(`${INIT}\n`);
    expect(await done).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).toContain("GITHUB_TOKEN=[redacted]");
    expect(text).not.toContain(token);
  });

  it("--out naming a folder, or in a folder that does not exist, is refused before the agent starts (exit 2), leaving nothing behind", async () => {
    const folder = path.join(dir, "a-folder");
    await mkdir(folder);
    for (const out of [folder, path.join(dir, "no-such-folder", "t.jsonl")]) {
      const stderr = new PassThrough();
      const said: Buffer[] = [];
      stderr.on("data", (c: Buffer) => said.push(c));
      const marker = path.join(dir, "agent-started");
      const code = await runRecorder({
        out,
        command: [process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`],
        stdin: new PassThrough(),
        stdout: new PassThrough(),
        stderr,
      });
      expect(code).toBe(2);
      expect(Buffer.concat(said).toString()).toContain(`record: cannot write the transcript to ${out}`);
      expect(existsSync(marker)).toBe(false);
    }
    expect(existsSync(`${folder}.tmp`)).toBe(false);
  });

  it.skipIf(process.platform === "win32" || process.getuid?.() === 0)(
    "--out in a folder this user may not write in is refused before the agent starts",
    async () => {
      const locked = path.join(dir, "locked");
      await mkdir(locked, { mode: 0o555 });
      const out = path.join(locked, "t.jsonl");
      const stderr = new PassThrough();
      const said: Buffer[] = [];
      stderr.on("data", (c: Buffer) => said.push(c));
      expect(
        await runRecorder({
          out,
          command: [process.execPath, "-e", "0"],
          stdin: new PassThrough(),
          stdout: new PassThrough(),
          stderr,
        }),
      ).toBe(2);
      expect(Buffer.concat(said).toString()).toContain("is not writable");
    },
  );

  it("an agent command that cannot start leaves an earlier transcript of the same name as it was", async () => {
    const out = path.join(dir, "precious.jsonl");
    await writeFile(out, "PRECIOUS\n");
    const stdin = new PassThrough();
    const done = runRecorder({ out, command: ["no-such-agent-command-xyz"], stdin, ...quiet() });
    stdin.write(`${INIT}\n`);
    expect(await done).toBe(127);
    expect(await readFile(out, "utf8")).toBe("PRECIOUS\n");
  });

  it("a second SIGTERM kills an agent that ignored the first: the recorder does not hang, and says how the agent ended", {
    timeout: 30_000,
  }, async () => {
    const out = path.join(dir, "stubborn.jsonl");
    const agent = `process.on("SIGTERM",()=>{});process.stdout.write("started\\n");setInterval(()=>{},1000)`;
    const child = spawn(CLI[0]!, [...CLI.slice(1), "record", "--out", out, "--", process.execPath, "-e", agent], {
      cwd: repo,
      stdio: ["pipe", "pipe", "pipe"],
    });
    await new Promise((resolve) => child.stdout.once("data", resolve));
    child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    expect(child.exitCode).toBeNull(); // the first is the agent's to handle
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(137);
    expect(
      parseTranscript(await readFile(out, "utf8"), out).entries.map((e) => (e.type === "raw" ? e.text : "")),
    ).toEqual(["started"]);
  });

  it("an editor that stops reading the recorder's stdout does not crash it: the session is still recorded to its end", {
    timeout: 60_000,
  }, async () => {
    const out = path.join(dir, "epipe.jsonl");
    const agent = `process.stdin.once("data",()=>{${answerInit};let i=0;const t=setInterval(()=>{for(let k=0;k<200;k++)process.stdout.write(JSON.stringify({jsonrpc:"2.0",method:"session/update",params:{sessionId:"s",update:{sessionUpdate:"agent_message_chunk",content:{type:"text",text:"x".repeat(200)+i++}}}})+"\\n");if(i>2000){clearInterval(t);process.stdin.destroy()}},5)})`;
    const child = spawn(CLI[0]!, [...CLI.slice(1), "record", "--out", out, "--", process.execPath, "-e", agent], {
      cwd: repo,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.write(`${INIT}\n`);
    child.stdout.once("data", () => child.stdout.destroy()); // the editor goes away
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).not.toContain("Unhandled 'error' event");
    expect(code).toBe(0);
    const t = parseTranscript(await readFile(out, "utf8"), out);
    expect(t.entries.length).toBeGreaterThan(2000);
  });
});

describe("replay does what a transcript says only when told to trust it", () => {
  // Transcripts are made to be shared: a file from elsewhere is data until its reader says otherwise.
  it("refuses every transcript without --trust, its agent command or one given with --agent, saying what replaying it would do", async () => {
    const marker = path.join(dir, "ran-header-command");
    const own = path.join(dir, "ran-own-command");
    const file = await initializeOnly("names-a-command.jsonl", markingAgent(marker));
    const refused = await runCli(["replay", file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `${file} was not replayed: replaying it would run the agent command ["node","-e","require(\\"node:fs\\").writeFileSync(`,
    );
    expect(refused.stderr).toContain("send the agent 1 recorded client message(s) as they are");
    expect(refused.stderr).toContain("Replay it with --trust once you trust the file");
    // An agent of one's own still gets the file's messages: refused all the same.
    const given = await runCli(["replay", file, "--agent", "--", "node", "-e", markingAgent(own)]);
    expect(given.code).toBe(2);
    expect(given.stderr).not.toContain("run the agent command");
    expect(given.stderr).toContain("send the agent 1 recorded client message(s)");
    expect(existsSync(marker) || existsSync(own)).toBe(false);

    const trusted = await runCli(["replay", "--trust", file]);
    expect(trusted.stdout).toContain(`PASS ${file}`);
    expect(trusted.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    const trustedOwn = await runCli(["replay", "--trust", file, "--agent", "--", "node", "-e", markingAgent(own)]);
    expect(trustedOwn.stdout).toContain(`PASS ${file}`);
    expect(existsSync(own)).toBe(true);
  });

  it("names what else the file would do: its environment, workspace files, scripted model and Codex configuration, the MCP servers its messages start", async () => {
    const marker = path.join(dir, "ran-with-env");
    const agent = ["node", "-e", markingAgent(marker)];
    const everything = await withHeader("names-everything.jsonl", "", {
      agent: { command: ["node", "x.js"], cwd: "<CWD>" },
      env: { NODE_OPTIONS: "--no-deprecation", "BAD\u001bNAME": "x" },
      workspace: { files: { "dist/index.js": "anything", "dist/package.json": "{}" } },
      fakeModel: { responses: [], extraConfig: '[mcp_servers.x]\ncommand = "anything"' },
    });
    const lines = (await readFile(everything, "utf8")).split("\n");
    lines.push(
      JSON.stringify({
        type: "message",
        dir: "client->agent",
        t: 2,
        msg: {
          jsonrpc: "2.0",
          id: 1,
          method: "session/new",
          params: { cwd: "<CWD>", mcpServers: [{ name: "s", command: "/bin/sh", args: ["-c", "echo"], env: [] }] },
        },
      }),
    );
    await writeFile(everything, lines.join("\n"));
    const refused = await runCli(["replay", everything, "--agent", "--", ...agent]);
    expect(refused.code).toBe(2);
    for (const phrase of [
      `set the agent's environment (NODE_OPTIONS, "BAD\\u001bNAME")`,
      "write 2 file(s) into the workspace and start the agent there",
      "give the agent a scripted model (fakeModel, 0 responses), whose tool calls the agent carries out",
      "add to Codex's configuration (fakeModel.extraConfig)",
      `have the agent start the MCP servers its messages name (["/bin/sh","-c","echo"])`,
      "send the agent 2 recorded client message(s)",
    ])
      expect(refused.stderr).toContain(phrase);
    expect(refused.stderr).not.toContain("\u001b");
    expect(existsSync(marker)).toBe(false);

    const env = await withHeader("names-env.jsonl", "", { env: { REPLAY_MARK: "set by the file" } });
    const trusted = await runCli(["replay", "--trust", env, "--agent", "--", ...agent]);
    expect(trusted.stdout).toContain(`PASS ${env}`);
    expect(await readFile(marker, "utf8")).toBe("set by the file");
  });
});

describe("replay", () => {
  it("passes against the agent it was recorded from", async () => {
    const result = await replayTranscript(recording);
    expect(formatReplayReport(result)).toMatch(/^PASS /);
    expect(result.mismatches).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.received).toBeGreaterThan(10);
  });

  it("fails when one field of one agent message differs, naming that field", async () => {
    const edited = await editedCopy("edited.jsonl", (entries) => {
      firstChunk(entries).text = "echo: bye";
    });
    const result = await replayTranscript(edited);
    expect(result.ok).toBe(false);
    const [first] = result.mismatches;
    expect(first).toMatchObject({
      kind: "difference",
      path: "$.params.update.content.text",
      expected: "echo: bye",
      actual: "echo: hi",
    });
    const report = formatReplayReport(result);
    expect(report).toMatch(/^FAIL /);
    expect(report).toContain("$.params.update.content.text");
    expect(report).toContain('expected: "echo: bye"');
    expect(report).toContain('actual:   "echo: hi"');
  });

  it("replays against another agent command given on the command line", async () => {
    const different = await runCli(["replay", "--trust", recording, "--agent", "--", ...ECHO, "--shout"]);
    expect(different.code).toBe(1);
    expect(different.stdout).toContain(`FAIL ${recording}`);
    expect(different.stdout).toContain("$.params.update.content.text");
    expect(different.stdout).toContain('actual:   "ECHO: HI"');

    const same = await runCli([
      "replay",
      "--trust",
      recording,
      "--agent",
      "--",
      "node",
      "--import",
      "tsx",
      "./tests/support/../support/echo-agent.ts",
    ]);
    expect(same.stdout).toContain(`PASS ${recording}`);
    expect(same.code).toBe(0);
  });

  it("replays every *.jsonl of a directory and reports each", async () => {
    const many = path.join(dir, "many");
    await mkdir(many);
    await copyFile(recording, path.join(many, "a.jsonl"));
    await copyFile(recording, path.join(many, "b.jsonl"));
    await writeFile(path.join(many, "notes.txt"), "not a transcript");
    const res = await runCli(["replay", "--trust", many]);
    expect(res.stdout).toContain(`PASS ${path.join(many, "a.jsonl")}`);
    expect(res.stdout).toContain(`PASS ${path.join(many, "b.jsonl")}`);
    expect(res.stdout).toContain("2 passed, 0 failed, 0 unreadable");
    expect(res.code).toBe(0);
    const empty = path.join(dir, "empty");
    await mkdir(empty);
    const none = await runCli(["replay", empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`no *.jsonl transcripts in ${empty}`);
  });

  it("--update rewrites the recording with the live messages, which then pass", async () => {
    const edited = await editedCopy("update.jsonl", (entries) => {
      firstChunk(entries).text = "echo: stale";
    });
    const before = parseTranscript(await readFile(edited, "utf8"), edited);
    const res = await runCli(["replay", "--trust", "--update", edited]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`UPDATED ${edited}`);
    const after = parseTranscript(await readFile(edited, "utf8"), edited);
    expect(after.header.agent).toEqual(before.header.agent);
    expect(after.header.clientCapabilities).toEqual(before.header.clientCapabilities);
    expect(firstChunk(after.entries).text).toBe("echo: hi");
    expect(JSON.stringify(after.entries)).toContain("<CWD>/hello.txt"); // portable paths
    expect((await replayTranscript(edited)).ok).toBe(true);
  });

  it("--update keeps the recording when the agent under test stops before its end (it crashed): nothing recorded is lost", async () => {
    const edited = await editedCopy("update-crash.jsonl", () => undefined);
    const before = await readFile(edited, "utf8");
    // Answers initialize, then exits at the next message.
    const crashy = `require("readline").createInterface({input:process.stdin}).on("line",(l)=>{const m=JSON.parse(l);if(m.method==="initialize")process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:m.id,result:{protocolVersion:1,agentCapabilities:{}}})+"\\n");else process.exit(3)})`;
    const result = await replayTranscript(edited, { update: true, agentCommand: [process.execPath, "-e", crashy] });
    expect(result.ok).toBe(false);
    expect(result.updated).toBe(false);
    expect(formatReplayReport(result)).toContain("not rewritten");
    expect(await readFile(edited, "utf8")).toBe(before);
  });

  it("--update of a redacted recording scrubs the credentials of the environment the agent ran with (a printenv replayed)", async () => {
    const token = "ghp_FROMTHEREPLAYERSENV0123";
    const file = path.join(dir, "update-env.jsonl");
    const lines = [
      {
        type: "header",
        version: 1,
        agent: { command: ["node", "x"] },
        protocolVersion: 1,
        recordedAt: "x",
        redacted: true,
      },
      {
        type: "message",
        dir: "client->agent",
        t: 1,
        msg: { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
      },
      {
        type: "message",
        dir: "agent->client",
        t: 2,
        msg: { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1, agentCapabilities: {} } },
      },
    ];
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const agent = `require("readline").createInterface({input:process.stdin}).on("line",(l)=>{const m=JSON.parse(l);process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:m.id,result:{protocolVersion:1,agentCapabilities:{},_meta:{env:"GITHUB_TOKEN="+process.env.GITHUB_TOKEN}}})+"\\n")})`;
    const result = await replayTranscript(file, {
      update: true,
      agentCommand: [process.execPath, "-e", agent],
      env: { GITHUB_TOKEN: token },
    });
    expect(result.updated).toBe(true);
    const text = await readFile(file, "utf8");
    expect(text).toContain("GITHUB_TOKEN=[redacted]");
    expect(text).not.toContain(token);
  });

  it("a path that is not a regular file (a FIFO) is refused at once, not waited on", {
    skip: process.platform === "win32",
  }, async () => {
    const fifo = path.join(dir, "pipe.jsonl");
    execFileSync("mkfifo", [fifo]);
    const res = await runCli(["replay", "--trust", fifo]);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain(`ERROR ${fifo}`);
    expect(res.stdout).toContain("not a regular file");
  });

  it("reports a malformed transcript line with file and line number", async () => {
    const text = (await readFile(recording, "utf8")).split("\n");
    text[3] = '{"type":"message","dir":"client->agent"';
    const broken = path.join(dir, "broken.jsonl");
    await writeFile(broken, text.join("\n"));
    const res = await runCli(["replay", broken]);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain(`${broken}:4: not valid JSON`);
    await expect(replayTranscript(broken)).rejects.toThrow(`${broken}:4:`);
  });

  it("flags ACP schema violations of the agent under test", async () => {
    // A hand-written agent whose initialize result has a string protocolVersion.
    const agent = `let b="";process.stdin.on("data",d=>{b+=d;let i;while((i=b.indexOf("\\n"))>=0){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);if(m.id!==undefined)process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:m.id,result:{protocolVersion:"one"}})+"\\n")}});`;
    const file = path.join(dir, "schema.jsonl");
    const lines = [
      {
        type: "header",
        version: 1,
        agent: { command: ["node", "-e", agent] },
        protocolVersion: 1,
        recordedAt: new Date().toISOString(),
      },
      {
        type: "message",
        dir: "client->agent",
        t: 0,
        msg: { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } },
      },
      {
        type: "message",
        dir: "agent->client",
        t: 1,
        msg: { jsonrpc: "2.0", id: 0, result: { protocolVersion: "one" } },
      },
    ];
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n"));
    const result = await replayTranscript(file);
    expect(result.ok).toBe(false);
    expect(result.mismatches[0]).toMatchObject({ kind: "schema", path: "$.result.protocolVersion" });
    expect(formatReplayReport(result)).toContain("violates the ACP schema at $.result.protocolVersion");
  });

  it("fails fast with a clear message when the agent sends fewer messages than recorded", async () => {
    const edited = await editedCopy("extra.jsonl", (entries) => {
      // Expect one more chunk after the first one (same session): the live agent never sends it.
      const i = entries.findIndex((e) => e.type === "message" && e.msg.method === "session/update");
      const copy = structuredClone(entries[i]!);
      entries.splice(i + 1, 0, copy);
    });
    const result = await replayTranscript(edited, { timeoutMs: 1500 });
    expect(result.ok).toBe(false);
    // The next live chunk is compared with the duplicated one, or the wait times out: either way named.
    expect(result.mismatches[0]?.summary).toMatch(/session\/update|timed out/);
  });

  it("reports every difference in one run: a summary of all, the first in full", async () => {
    const edited = await editedCopy("three-diffs.jsonl", (entries) => {
      let n = 0;
      for (const e of entries) {
        if (e.type !== "message" || e.dir !== "agent->client" || e.msg.method !== "session/update") continue;
        const update = (e.msg.params as { update: { sessionUpdate: string; content?: { text: string } } }).update;
        if (update.sessionUpdate === "agent_message_chunk" && update.content) update.content.text = `changed ${++n}`;
      }
      expect(n).toBeGreaterThanOrEqual(3);
    });
    const result = await replayTranscript(edited);
    expect(result.ok).toBe(false);
    const differences = result.mismatches.filter((m) => m.kind === "difference");
    expect(differences.length).toBeGreaterThanOrEqual(3);
    const report = formatReplayReport(result);
    expect(report).toContain('expected: "changed 1"');
    expect(report).toContain(`${result.mismatches.length - 1} more problem(s):`);
    for (const m of result.mismatches.slice(1)) expect(report).toContain(m.summary);
  });

  it("an agent that does not exit on EOF fails, unless the replay may stop it (--stop-after-eof)", async () => {
    // Answers initialize, then ignores EOF (as Zed's adapter does).
    const agent = `process.stdin.on("data",d=>{for(const l of String(d).split("\\n")){if(!l)continue;const m=JSON.parse(l);process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:m.id,result:{protocolVersion:1}})+"\\n")}});process.stdin.on("end",()=>{});setInterval(()=>{},1000);`;
    const file = await initializeOnly("no-eof.jsonl", agent);
    const strict = await replayTranscript(file, { exitTimeoutMs: 300 });
    expect(strict.mismatches).toEqual([
      expect.objectContaining({ kind: "agent-exit", summary: expect.stringContaining("--stop-after-eof") }),
    ]);
    const res = await runCli(["replay", "--trust", "--stop-after-eof", "0.3", file]);
    expect(res.stdout).toContain(`PASS ${file}`);
    expect(res.code).toBe(0);
  });

  it("a failing agent's report shows its error lines, not a backtrace's frames", async () => {
    const agent = `for(let i=0;i<30;i++)console.error("starting step "+i);console.error("Error: cannot open the model catalog");for(let i=0;i<12;i++)console.error("    at frame"+i+" (file.js:"+i+":1)");process.exit(1);`;
    const file = await initializeOnly("crash.jsonl", agent);
    const report = formatReplayReport(await replayTranscript(file));
    expect(report).toContain("agent stderr (error lines, then the last lines):");
    expect(report).toContain("| Error: cannot open the model catalog");
    expect(report).not.toContain("starting step 3\n");
    expect(report.match(/\| {4}at frame/g)?.length ?? 0).toBeLessThanOrEqual(3);
  });
});
