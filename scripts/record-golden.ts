// (Re)generates the golden transcripts in tests/transcripts/ by really recording them: for each
// scenario below, a fake model and a hermetic CODEX_HOME are started, `codex-cli-acp record`
// proxies a real ACP SDK client to the bundled adapter (dist/index.js), and the recording is
// post-edited to be portable: the header gets the scenario's fakeModel script and workspace
// files, this run's directories become placeholders (<CWD>, <CODEX_HOME>, <HOME>, <TMP>), and the
// recording machine's cwd/paths are dropped.
//
// Usage (after `npm run build`):  npx tsx scripts/record-golden.ts [name...]
//   e.g. `npx tsx scripts/record-golden.ts cancel` re-records tests/transcripts/cancel.jsonl only.
// Then check: `CCA_SKIP_BUILD=1 npx vitest run tests/e2e/transcripts-golden.test.ts`.
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { createCodexHome, parseFakeModelScript, startFakeModel } from "../src/fake-model/index.js";
import { parseTranscript, serializeTranscript, type TranscriptHeader } from "../src/transcripts/format.js";
import { pathsToPlaceholders, placeholdersToPaths, type Placeholders } from "../src/transcripts/normalise.js";

const repo = path.resolve(import.meta.dirname, "..");
const OUT_DIR = path.join(repo, "tests/transcripts");
const AGENT = ["node", "dist/index.js"];
const NS = "mcp__acp_fs";
const CLIENT_INFO = { name: "golden-client", version: "1.0.0" };

type Ctx = {
  agent: acp.ClientContext;
  workspace: string;
  /** Resolves when a session/update of this kind has reached the client. */
  waitForUpdate(kind: string): Promise<void>;
};

type Scenario = {
  /** Header fakeModel (may use <CWD>). */
  fakeModel: { responses: unknown[]; approvalPolicy?: string; sandboxMode?: string };
  files?: Record<string, string>;
  clientCapabilities: acp.ClientCapabilities;
  /** Client-side handlers for agent requests. */
  handlers?: (app: acp.ClientApp) => void;
  drive(ctx: Ctx): Promise<void>;
};

const done = { items: [{ type: "message", text: "Done." }] };

async function newSession(ctx: Ctx): Promise<string> {
  const commands = ctx.waitForUpdate("available_commands_update");
  const { sessionId } = await ctx.agent.request(acp.methods.agent.session.new, { cwd: ctx.workspace, mcpServers: [] });
  // The adapter announces its commands just after the session/new response; waiting for them
  // puts them before the next client message in the recording, so replay waits for them too and
  // their place in the session's update stream does not depend on timing.
  await commands;
  return sessionId;
}

async function prompt(ctx: Ctx, sessionId: string, text: string): Promise<acp.PromptResponse> {
  return ctx.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

function expectStop(res: acp.PromptResponse, stop: string): void {
  if (res.stopReason !== stop) throw new Error(`stopReason ${res.stopReason}, expected ${stop}`);
}

function answerPermission(optionId: string): (app: acp.ClientApp) => void {
  return (app) => {
    app.onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "selected", optionId } }));
  };
}

export /** An editor whose buffer for every file reads "unsaved buffer\n" and that accepts every write. */
function unsavedBufferEditor(app: acp.ClientApp): void {
  app.onRequest(acp.methods.client.fs.readTextFile, () => ({ content: "unsaved buffer\n" }));
  app.onRequest(acp.methods.client.fs.writeTextFile, () => ({}));
}

const SCENARIOS: Record<string, Scenario> = {
  handshake: {
    fakeModel: { responses: [] },
    clientCapabilities: {},
    async drive(ctx) {
      await newSession(ctx);
    },
  },

  "text-turn": {
    fakeModel: {
      responses: [
        {
          items: [
            { type: "reasoning", summary: "The user wants a greeting.", deltas: 2 },
            { type: "message", text: "Hello there, nice to meet you.", deltas: 3 },
          ],
          usage: { input_tokens: 120, output_tokens: 18, total_tokens: 138 },
        },
      ],
    },
    clientCapabilities: {},
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "say hello"), "end_turn");
    },
  },

  cancel: {
    // One chunk, then the stream hangs: the client cancels once it has seen that chunk.
    fakeModel: { responses: [{ items: [{ type: "message", text: "Working on it", deltas: ["Working on it"] }], hang: true }] },
    clientCapabilities: {},
    async drive(ctx) {
      const sid = await newSession(ctx);
      const chunk = ctx.waitForUpdate("agent_message_chunk");
      const pending = prompt(ctx, sid, "write a long essay");
      await chunk;
      await ctx.agent.notify(acp.methods.agent.session.cancel, { sessionId: sid });
      expectStop(await pending, "cancelled");
    },
  },

  "file-tools-editor": {
    fakeModel: {
      responses: [
        { items: [{ type: "function_call", namespace: NS, name: "read_text_file", arguments: { path: "<CWD>/notes.txt" }, callId: "call_read" }] },
        { items: [{ type: "function_call", namespace: NS, name: "write_text_file", arguments: { path: "<CWD>/notes.txt", content: "rewritten\n" }, callId: "call_write" }] },
        done,
      ],
    },
    files: { "notes.txt": "on disk\n" },
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    handlers: unsavedBufferEditor,
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "rewrite notes.txt"), "end_turn");
    },
  },

  "apply-patch-editor": {
    fakeModel: {
      responses: [
        {
          items: [
            {
              type: "function_call",
              namespace: NS,
              name: "apply_patch",
              arguments: { input: "*** Begin Patch\n*** Update File: notes.txt\n@@\n-unsaved buffer\n+patched line\n*** Add File: docs/new.md\n+# New\n*** End Patch" },
              callId: "call_patch",
            },
          ],
        },
        done,
      ],
    },
    files: { "notes.txt": "on disk\n" },
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    handlers: unsavedBufferEditor,
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "patch notes.txt"), "end_turn");
      const disk = await readFile(path.join(ctx.workspace, "notes.txt"), "utf8");
      if (disk !== "on disk\n") throw new Error(`notes.txt on disk changed: ${JSON.stringify(disk)}`);
    },
  },

  "file-tools-local": {
    fakeModel: {
      responses: [
        { items: [{ type: "function_call", namespace: NS, name: "read_text_file", arguments: { path: "<CWD>/disk.txt" }, callId: "call_read" }] },
        { items: [{ type: "function_call", namespace: NS, name: "write_text_file", arguments: { path: "<CWD>/created.txt", content: "hello\n" }, callId: "call_write" }] },
        done,
      ],
    },
    files: { "disk.txt": "disk text\n" },
    clientCapabilities: {},
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "copy it"), "end_turn");
      const created = await readFile(path.join(ctx.workspace, "created.txt"), "utf8");
      if (created !== "hello\n") throw new Error(`created.txt: ${JSON.stringify(created)}`);
    },
  },

  "command-approval": {
    fakeModel: {
      responses: [
        {
          items: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: "echo yes > out.txt", sandbox_permissions: "require_escalated", justification: "needs to write" },
              callId: "call_cmd",
            },
          ],
        },
        done,
      ],
    },
    clientCapabilities: {},
    handlers: answerPermission("allow_once"),
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "write yes to out.txt"), "end_turn");
      const out = await readFile(path.join(ctx.workspace, "out.txt"), "utf8");
      if (out !== "yes\n") throw new Error(`out.txt: ${JSON.stringify(out)}`);
    },
  },

  "patch-approval": {
    // Read-only mode: every patch asks; the client rejects it.
    fakeModel: {
      responses: [
        { items: [{ type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch", callId: "call_patch" }] },
        done,
      ],
    },
    files: { "a.txt": "old\n" },
    clientCapabilities: {},
    handlers: answerPermission("reject"),
    async drive(ctx) {
      const sid = await newSession(ctx);
      await ctx.agent.request(acp.methods.agent.session.setMode, { sessionId: sid, modeId: "read-only" });
      expectStop(await prompt(ctx, sid, "change old to new in a.txt"), "end_turn");
      const a = await readFile(path.join(ctx.workspace, "a.txt"), "utf8");
      if (a !== "old\n") throw new Error(`a.txt changed: ${JSON.stringify(a)}`);
    },
  },

  load: {
    // A thread is made and prompted, then loaded again (the open session is closed and
    // reopened): the load replays its history as updates before its response.
    fakeModel: { responses: [{ items: [{ type: "message", text: "Remember: the answer is 42." }] }] },
    clientCapabilities: {},
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "what is the answer?"), "end_turn");
      await ctx.agent.request(acp.methods.agent.session.load, { sessionId: sid, cwd: ctx.workspace, mcpServers: [] });
    },
  },
};

async function recordScenario(name: string, sc: Scenario): Promise<string> {
  const runDir = await realpath(await mkdtemp(path.join(os.tmpdir(), `golden-${name}-`)));
  const workspace = path.join(runDir, "workspace");
  await mkdir(workspace);
  for (const [rel, content] of Object.entries(sc.files ?? {})) {
    await mkdir(path.dirname(path.join(workspace, rel)), { recursive: true });
    await writeFile(path.join(workspace, rel), content);
  }
  const script = parseFakeModelScript({ responses: placeholdersToPaths(sc.fakeModel.responses, { "<CWD>": workspace }) });
  const model = await startFakeModel(script);
  const homeOpts: Parameters<typeof createCodexHome>[0] = { modelUrl: model.url, dir: path.join(runDir, "codex") };
  if (sc.fakeModel.approvalPolicy) homeOpts.approvalPolicy = sc.fakeModel.approvalPolicy;
  if (sc.fakeModel.sandboxMode) homeOpts.sandboxMode = sc.fakeModel.sandboxMode;
  const home = await createCodexHome(homeOpts);
  const raw = path.join(runDir, "raw.jsonl");
  try {
    // `record` exactly as an editor would start it: its stdio is the editor's side of the pipe.
    const child = spawn(process.execPath, ["--import", "tsx", "src/transcripts/cli-main.ts", "record", "--out", raw, "--", ...AGENT], {
      cwd: repo,
      env: { ...process.env, ...home.env },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const seen = new Map<string, Array<() => void>>();
    const arrived = new Set<string>();
    const app = acp.client(CLIENT_INFO).onNotification(acp.methods.client.session.update, ({ params }) => {
      const kind = params.update.sessionUpdate;
      arrived.add(kind);
      for (const r of seen.get(kind) ?? []) r();
      seen.delete(kind);
    });
    sc.handlers?.(app);
    await app.connectWith(
      acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>),
      async (agent) => {
        await agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: sc.clientCapabilities,
          clientInfo: CLIENT_INFO,
        });
        await sc.drive({
          agent,
          workspace,
          waitForUpdate: (kind) =>
            arrived.has(kind) ? Promise.resolve() : new Promise<void>((resolve) => seen.set(kind, [...(seen.get(kind) ?? []), resolve])),
        });
      },
    );
    child.stdin.end();
    const code = await exit;
    if (code !== 0) throw new Error(`record exited with ${String(code)}`);

    // Post-edit: portable header with the fake model script, placeholders instead of this run's paths.
    const t = parseTranscript(await readFile(raw, "utf8"), raw);
    const placeholders: Placeholders = {
      "<CWD>": workspace,
      "<CODEX_HOME>": home.codexHome,
      "<HOME>": home.home,
      "<TMP>": home.tmpdir,
    };
    const header: TranscriptHeader = {
      type: "header",
      version: 1,
      agent: { command: AGENT },
      protocolVersion: t.header.protocolVersion,
      ...(t.header.clientCapabilities ? { clientCapabilities: t.header.clientCapabilities } : {}),
      fakeModel: sc.fakeModel,
      ...(sc.files ? { workspace: { files: sc.files } } : {}),
      recordedAt: t.header.recordedAt,
    };
    const entries = t.entries.map(({ line: _line, ...e }) =>
      e.type === "raw" ? { ...e, text: pathsToPlaceholders(e.text, placeholders) as string } : { ...e, msg: pathsToPlaceholders(e.msg, placeholders) as Record<string, unknown> },
    );
    const text = serializeTranscript(header, entries);
    for (const leak of [runDir, repo, os.homedir()]) {
      if (text.includes(leak)) console.warn(`warning: ${name}: the transcript still contains ${leak}`);
    }
    const out = path.join(OUT_DIR, `${name}.jsonl`);
    await writeFile(out, text);
    return out;
  } finally {
    await model.close();
    await rm(runDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

const wanted = process.argv.slice(2);
for (const name of wanted) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(", ")}`);
await mkdir(OUT_DIR, { recursive: true });
for (const [name, sc] of Object.entries(SCENARIOS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const out = await recordScenario(name, sc);
  console.log(`recorded ${path.relative(repo, out)}`);
}
