// The golden transcripts' scenarios: what the client does, what the fake model answers, and the
// workspace each starts with. scripts/record-golden.ts records them.
import * as acp from "@agentclientprotocol/sdk";
import type * as acp2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { readFile } from "node:fs/promises";
import path from "node:path";

const NS = "mcp__acp_fs";

export type Ctx = {
  agent: acp.ClientContext;
  workspace: string;
  /** Resolves when a session/update of this kind has reached the client. */
  waitForUpdate(kind: string): Promise<void>;
};

type FakeModelScript = { responses: unknown[]; approvalPolicy?: string; sandboxMode?: string };

/** Driven by an ACP v1 client (the SDK's stable API). */
export type V1Scenario = {
  protocol?: 1;
  /** Header fakeModel (may use <CWD>). */
  fakeModel: FakeModelScript;
  files?: Record<string, string>;
  clientCapabilities: acp.ClientCapabilities;
  /** Client-side handlers for agent requests. */
  handlers?: (app: acp.ClientApp) => void;
  drive(ctx: Ctx): Promise<void>;
};

export type V2Ctx = {
  agent: acp2.ClientContext;
  workspace: string;
  /** The next session/update from now on that `matches` (ask before the request that causes it). */
  nextUpdate(matches: (update: acp2.SessionUpdate) => boolean): Promise<acp2.SessionUpdate>;
};

/**
 * Driven by an ACP v2 (draft) client: the SDK's v2 API, `initialize` asking for version 2. It can
 * be recorded only from an agent that serves v2; record-golden.ts skips it, saying so, when the
 * agent answers with version 1.
 */
export type V2Scenario = {
  protocol: 2;
  fakeModel: FakeModelScript;
  files?: Record<string, string>;
  capabilities: acp2.ClientCapabilities;
  handlers?: (app: acp2.ClientApp) => void;
  drive(ctx: V2Ctx): Promise<void>;
};

export type Scenario = V1Scenario | V2Scenario;

/**
 * Declared by every golden client that prompts: warnings about the machine (Codex's "bubblewrap
 * not found" on Linux without it) then arrive as ACP notices, which replay does not match
 * (contracts/transcript-format.md), instead of agent text that would tie a golden to a machine.
 */
const SHOWS_NOTICES = { session: { notices: {} } } satisfies acp.ClientCapabilities;

const done = { items: [{ type: "message", text: "Done." }] };
/** The model asks to run a command that writes in the workspace, with escalated permissions: the client is asked. */
const ESCALATED_WRITE = {
  type: "function_call",
  name: "exec_command",
  arguments: { cmd: "echo yes > out.txt", sandbox_permissions: "require_escalated", justification: "needs to write" },
  callId: "call_cmd",
} as const;

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

const isIdle = (u: acp2.SessionUpdate): boolean => u.sessionUpdate === "state_update" && u.state === "idle";

/** One v2 prompt, through to the idle snapshot that ends its turn (the response only says it was taken). */
async function promptV2(ctx: V2Ctx, sessionId: string, text: string, stop: string): Promise<void> {
  const idle = ctx.nextUpdate(isIdle);
  await ctx.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const ended = await idle;
  const reason = ended.sessionUpdate === "state_update" && ended.state === "idle" ? ended.stopReason : undefined;
  if (reason !== stop) throw new Error(`idle with stopReason ${String(reason)}, expected ${stop}`);
}

/** An editor whose buffer for every file reads "unsaved buffer\n" and that accepts every write. */
function unsavedBufferEditor(app: acp.ClientApp): void {
  app.onRequest(acp.methods.client.fs.readTextFile, () => ({ content: "unsaved buffer\n" }));
  app.onRequest(acp.methods.client.fs.writeTextFile, () => ({}));
}

export const SCENARIOS: Record<string, Scenario> = {
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
    clientCapabilities: SHOWS_NOTICES,
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "say hello"), "end_turn");
    },
  },

  cancel: {
    // One chunk, then the stream hangs: the client cancels once it has seen that chunk.
    fakeModel: {
      responses: [{ items: [{ type: "message", text: "Working on it", deltas: ["Working on it"] }], hang: true }],
    },
    clientCapabilities: SHOWS_NOTICES,
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
        {
          items: [
            {
              type: "function_call",
              namespace: NS,
              name: "read_text_file",
              arguments: { path: "<CWD>/notes.txt" },
              callId: "call_read",
            },
          ],
        },
        {
          items: [
            {
              type: "function_call",
              namespace: NS,
              name: "write_text_file",
              arguments: { path: "<CWD>/notes.txt", content: "rewritten\n" },
              callId: "call_write",
            },
          ],
        },
        done,
      ],
    },
    files: { "notes.txt": "on disk\n" },
    clientCapabilities: { ...SHOWS_NOTICES, fs: { readTextFile: true, writeTextFile: true } },
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
              arguments: {
                input:
                  "*** Begin Patch\n*** Update File: notes.txt\n@@\n-unsaved buffer\n+patched line\n*** Add File: docs/new.md\n+# New\n*** End Patch",
              },
              callId: "call_patch",
            },
          ],
        },
        done,
      ],
    },
    files: { "notes.txt": "on disk\n" },
    clientCapabilities: { ...SHOWS_NOTICES, fs: { readTextFile: true, writeTextFile: true } },
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
        {
          items: [
            {
              type: "function_call",
              namespace: NS,
              name: "read_text_file",
              arguments: { path: "<CWD>/disk.txt" },
              callId: "call_read",
            },
          ],
        },
        {
          items: [
            {
              type: "function_call",
              namespace: NS,
              name: "write_text_file",
              arguments: { path: "<CWD>/created.txt", content: "hello\n" },
              callId: "call_write",
            },
          ],
        },
        done,
      ],
    },
    files: { "disk.txt": "disk text\n" },
    clientCapabilities: SHOWS_NOTICES,
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "copy it"), "end_turn");
      const created = await readFile(path.join(ctx.workspace, "created.txt"), "utf8");
      if (created !== "hello\n") throw new Error(`created.txt: ${JSON.stringify(created)}`);
    },
  },

  "command-approval": {
    fakeModel: {
      responses: [{ items: [ESCALATED_WRITE] }, done],
    },
    clientCapabilities: SHOWS_NOTICES,
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
        {
          items: [
            {
              type: "custom_tool_call",
              name: "apply_patch",
              input: "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch",
              callId: "call_patch",
            },
          ],
        },
        done,
      ],
    },
    files: { "a.txt": "old\n" },
    clientCapabilities: SHOWS_NOTICES,
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
    clientCapabilities: SHOWS_NOTICES,
    async drive(ctx) {
      const sid = await newSession(ctx);
      expectStop(await prompt(ctx, sid, "what is the answer?"), "end_turn");
      await ctx.agent.request(acp.methods.agent.session.load, { sessionId: sid, cwd: ctx.workspace, mcpServers: [] });
    },
  },

  "plan-mode": {
    // The client picks Codex's plan mode; the model answers with a proposed plan.
    fakeModel: {
      responses: [
        {
          items: [
            {
              type: "message",
              text: "<proposed_plan>\n# Add a cache\n1. Measure.\n2. Cache the lookups.\n</proposed_plan>",
            },
          ],
        },
      ],
    },
    clientCapabilities: SHOWS_NOTICES,
    async drive(ctx) {
      const sid = await newSession(ctx);
      await ctx.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId: sid,
        configId: "collaboration_mode",
        value: "plan",
      });
      expectStop(await prompt(ctx, sid, "plan a cache"), "end_turn");
    },
  },

  question: {
    // In plan mode the model asks the user; the client answers the form.
    fakeModel: {
      responses: [
        {
          items: [
            {
              type: "function_call",
              name: "request_user_input",
              arguments: {
                questions: [
                  {
                    id: "color",
                    header: "Color",
                    question: "Which color?",
                    options: [
                      { label: "Red (Recommended)", description: "warm" },
                      { label: "Blue", description: "cool" },
                    ],
                  },
                ],
              },
              callId: "call_ask",
            },
          ],
        },
        { items: [{ type: "message", text: "Blue it is." }] },
      ],
    },
    clientCapabilities: { ...SHOWS_NOTICES, elicitation: { form: {} } },
    handlers: (app) => {
      app.onRequest(acp.methods.client.elicitation.create, () => ({ action: "accept", content: { color: "Blue" } }));
    },
    async drive(ctx) {
      const sid = await newSession(ctx);
      await ctx.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId: sid,
        configId: "collaboration_mode",
        value: "plan",
      });
      expectStop(await prompt(ctx, sid, "pick a color"), "end_turn");
    },
  },

  "queued-prompt": {
    // A second prompt sent while the first turn runs waits for it; both end end_turn, in order.
    fakeModel: {
      responses: [
        { items: [{ type: "message", text: "First answer." }], delayMs: 200 },
        { items: [{ type: "message", text: "Second answer." }] },
      ],
    },
    clientCapabilities: SHOWS_NOTICES,
    async drive(ctx) {
      const sid = await newSession(ctx);
      const [first, second] = await Promise.all([prompt(ctx, sid, "first"), prompt(ctx, sid, "second")]);
      expectStop(first, "end_turn");
      expectStop(second, "end_turn");
    },
  },

  "v2-basics": {
    // ACP v2: the handshake, a session, a text turn ending in an idle state_update, a command the
    // client approves through session/request_permission, and session/close.
    protocol: 2,
    fakeModel: {
      responses: [
        { items: [{ type: "message", text: "Hello from version two." }] },
        { items: [ESCALATED_WRITE] },
        done,
      ],
    },
    capabilities: {},
    handlers: (app) => {
      // By kind, not by id: the option ids are the agent's to choose.
      app.onRequest("session/request_permission", ({ params }) => {
        const allow = params.options.find((o) => o.kind === "allow_once");
        if (!allow) throw new Error(`no allow_once option in ${JSON.stringify(params.options)}`);
        return { outcome: { outcome: "selected", optionId: allow.optionId } };
      });
    },
    async drive(ctx) {
      // The agent announces its commands just after session/new: waiting for them puts them before
      // the first prompt in the recording, so their place in the stream does not depend on timing.
      const commands = ctx.nextUpdate((u) => u.sessionUpdate === "available_commands_update");
      const { sessionId } = await ctx.agent.request("session/new", { cwd: ctx.workspace });
      await commands;
      await promptV2(ctx, sessionId, "say hello", "end_turn");
      await promptV2(ctx, sessionId, "write yes to out.txt", "end_turn");
      const out = await readFile(path.join(ctx.workspace, "out.txt"), "utf8");
      if (out !== "yes\n") throw new Error(`out.txt: ${JSON.stringify(out)}`);
      await ctx.agent.request("session/close", { sessionId });
    },
  },
};
