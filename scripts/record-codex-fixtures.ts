// Records what the real codex app-server sends, per kind of item, as fixtures for the bridge's
// mapping tests (tests/fixtures/codex/*.json): the thread's notifications of one turn, and the same
// turn as `thread/turns/list` stores it. Run after bumping @openai/codex:
//   npx tsx scripts/record-codex-fixtures.ts
// Paths of the run are replaced by <WS>, ids and times are kept (they are what Codex sent).
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  applyPatch,
  createCodexHome,
  defaultCodexPath,
  startFakeModel,
  textResponse,
  toolCall,
  toolCallResponse,
  type ScriptedResponse,
} from "../tools/fake-model/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "tests/fixtures/codex");
const mcpServer = path.join(root, "tests/support/stdio-mcp-server.mjs");

type Scenario = {
  responses: ScriptedResponse[];
  config?: Record<string, unknown>;
  files?: Record<string, string>;
  /** How the turn starts (default: a user message). */
  start?: "turn" | "review" | "compact";
  rawEvents?: boolean;
};

const SCENARIOS: Record<string, Scenario> = {
  "agent-message": {
    responses: [textResponse("Hello there, friend.", { deltas: 3, reasoning: "Thinking about greetings" })],
  },
  "command-execution": {
    responses: [
      toolCallResponse("exec_command", { cmd: "printf 'one\\ntwo\\n'" }, { callId: "call_cmd" }),
      textResponse("ran it"),
    ],
  },
  "file-change": {
    files: { "a.txt": "alpha\nbeta\n" },
    responses: [
      {
        items: [
          applyPatch(
            "*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+gamma\n*** Add File: b.txt\n+new\n*** End Patch",
            { callId: "call_patch" },
          ),
        ],
      },
      textResponse("patched"),
    ],
  },
  "mcp-tool-call": {
    config: { mcp_servers: { notes: { command: process.execPath, args: [mcpServer] } } },
    responses: [
      toolCallResponse("lookup_word", { word: "ephemeral" }, { namespace: "mcp__notes", callId: "call_mcp" }),
      textResponse("looked up"),
    ],
  },
  "native-patch-rejected": {
    rawEvents: true,
    files: { "n.txt": "one\n" },
    responses: [
      {
        items: [
          applyPatch("*** Begin Patch\n*** Update File: n.txt\n@@\n-two\n+three\n*** End Patch", {
            callId: "call_native",
          }),
        ],
      },
      textResponse("it did not apply"),
    ],
  },
  review: { start: "review", responses: [textResponse("No issues found in the change.")] },
  compaction: { start: "compact", responses: [textResponse("Summary of the conversation so far.")] },
  plan: {
    responses: [
      {
        items: [
          toolCall(
            "update_plan",
            {
              plan: [
                { step: "Read the code", status: "completed" },
                { step: "Fix the bug", status: "in_progress" },
              ],
            },
            { callId: "call_plan" },
          ),
        ],
      },
      textResponse("planned"),
    ],
  },
};

async function record(name: string, scenario: Scenario): Promise<void> {
  const fake = await startFakeModel(scenario.responses);
  const home = await createCodexHome({ modelUrl: fake.url, extraConfig: "[tools.update_plan]\nenabled = true\n" });
  const ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cca-fixture-ws-")));
  for (const [rel, text] of Object.entries(scenario.files ?? {})) writeFileSync(path.join(ws, rel), text);
  const child = spawn(defaultCodexPath(), ["app-server"], {
    env: { ...process.env, ...home.env },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const pending = new Map<number, (m: { result?: unknown; error?: unknown }) => void>();
  const notifications: Array<{ method: string; params: unknown }> = [];
  let buf = "";
  let nextId = 1;
  let turnDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (turnDone = resolve));
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const msg = JSON.parse(buf.slice(0, nl)) as { id?: number; method?: string; params?: unknown; result?: unknown };
      buf = buf.slice(nl + 1);
      if (msg.method && msg.id !== undefined)
        child.stdin.write(`${JSON.stringify({ id: msg.id, result: { decision: "accept" } })}\n`);
      else if (msg.method) {
        notifications.push({ method: msg.method, params: msg.params });
        if (msg.method === "turn/completed") turnDone();
      } else if (msg.id !== undefined) pending.get(msg.id)?.(msg);
    }
  });
  const request = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  try {
    await request("initialize", {
      clientInfo: { name: "fixtures", version: "1" },
      capabilities: { experimentalApi: true },
    });
    child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
    const started = (
      await request("thread/start", {
        cwd: ws,
        approvalPolicy: "never",
        sandbox: "workspace-write",
        ...(scenario.config ? { config: scenario.config } : {}),
        ...(scenario.rawEvents ? { experimentalRawEvents: true } : {}),
      })
    ).result as { thread: { id: string } };
    const threadId = started.thread.id;
    notifications.length = 0;
    if (scenario.start === "review")
      await request("review/start", {
        threadId,
        target: { type: "custom", instructions: "look at it" },
        delivery: "inline",
      });
    else if (scenario.start === "compact") await request("thread/compact/start", { threadId });
    else
      await request("turn/start", { threadId, input: [{ type: "text", text: `please: ${name}`, text_elements: [] }] });
    await done;
    const turns = (await request("thread/turns/list", { threadId, itemsView: "full", sortDirection: "asc", limit: 10 }))
      .result as { data: unknown[] };
    // Only what the bridge reads, from this thread, without the model's raw request noise.
    const kept = notifications
      .filter(
        (n) =>
          !/^(account|remoteControl|mcpServer|thread\/status|thread\/readState|thread\/started|configWarning)/.test(
            n.method,
          ),
      )
      // Raw items that are not tool calls (instructions, messages) are large and say nothing here.
      .filter(
        (n) =>
          n.method !== "rawResponseItem/completed" ||
          /tool_call/.test(JSON.stringify((n.params as { item?: { type?: string } }).item?.type ?? "")),
      );
    const portable: unknown = JSON.parse(
      JSON.stringify({ notifications: kept, turns: turns.data }).split(ws).join("<WS>"),
    );
    writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify(portable, null, 1)}\n`);
    process.stderr.write(`recorded ${name}: ${kept.length} notifications\n`);
  } finally {
    child.kill();
    await fake.close();
    await home.cleanup();
    rmSync(ws, { recursive: true, force: true });
  }
}

mkdirSync(out, { recursive: true });
const wanted = process.argv.slice(2);
for (const [name, scenario] of Object.entries(SCENARIOS))
  if (wanted.length === 0 || wanted.includes(name)) await record(name, scenario);
