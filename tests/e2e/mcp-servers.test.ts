// Issue 4: MCP servers given in session/new are forwarded to Codex; their tools are called by
// the model and the results reach the client as tool calls with a sensible kind.
import { afterEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { answerPermissions, startAdapter, type Adapter } from "../support/adapter.js";
import { toolCall, type ScriptedResponse } from "../support/fake-model.js";

const SERVER = path.resolve(import.meta.dirname, "../support/stdio-mcp-server.mjs");

let adapter: Adapter | undefined;
let logDir: string | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  if (logDir) await rm(logDir, { recursive: true, force: true });
  logDir = undefined;
});

const done: ScriptedResponse = { items: [{ type: "message", text: "done" }] };

async function start(responses: ScriptedResponse[], answer = "allow_once") {
  const { asked, setupClient } = answerPermissions(answer);
  adapter = await startAdapter({ responses, setupClient });
  await adapter.initialize();
  logDir = await mkdtemp(path.join(os.tmpdir(), "cca-mcp-"));
  const log = path.join(logDir, "calls.jsonl");
  const session = await adapter.newSession(undefined, {
    // A name Codex would not accept as is: made safe ([a-zA-Z0-9_-]) -> "test_notes".
    mcpServers: [
      { name: "test notes!", command: process.execPath, args: [SERVER], env: [{ name: "MCP_CALL_LOG", value: log }] },
    ],
  });
  return { asked, sessionId: session.sessionId, log };
}

describe("client MCP servers", () => {
  it("a stdio server's read-only tool: called by the model, shown as `server: tool` kind read with the result as content", async () => {
    const { asked, sessionId, log } = await start([
      { items: [toolCall("lookup_word", { word: "ossify" }, { namespace: "mcp__test_notes", callId: "m1" })] },
      done,
    ]);
    expect((await adapter!.prompt(sessionId, "define ossify")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(0);
    expect(await readFile(log, "utf8")).toBe(`${JSON.stringify({ tool: "lookup_word", args: { word: "ossify" } })}\n`);
    const updates = adapter!
      .updatesOf(sessionId)
      .filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "m1",
        status: "in_progress",
        title: "test_notes: lookup_word",
        kind: "read",
        name: "lookup_word",
        rawInput: { word: "ossify" },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "m1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "definition of ossify" } }],
        rawOutput: expect.objectContaining({ content: [{ type: "text", text: "definition of ossify" }] }),
      },
    ]);
    // The result went back to the model.
    expect(JSON.stringify(adapter!.fake.requests[1]!.body.input)).toContain("definition of ossify");
  });

  it("a tool that is not read-only asks first (on its tool call), then runs", async () => {
    const { asked, sessionId, log } = await start([
      { items: [toolCall("save_note", { text: "remember" }, { namespace: "mcp__test_notes", callId: "m2" })] },
      done,
    ]);
    expect((await adapter!.prompt(sessionId, "save it")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.toolCall).toMatchObject({
      toolCallId: "m2",
      title: "test_notes: save_note",
      kind: "edit",
      status: "pending",
    });
    expect(asked[0]!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(await readFile(log, "utf8")).toContain('"save_note"');
    expect(adapter!.updatesOf(sessionId)).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call_update",
        toolCallId: "m2",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "saved: remember" } }],
      }),
    );
  });

  it("rejecting the tool: not called, the turn goes on", async () => {
    const { asked, sessionId, log } = await start(
      [{ items: [toolCall("save_note", { text: "no" }, { namespace: "mcp__test_notes", callId: "m3" })] }, done],
      "reject",
    );
    expect((await adapter!.prompt(sessionId, "save it")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1); // the call was there to refuse (an empty log alone proves nothing)
    expect(await readFile(log, "utf8").catch(() => "")).toBe("");
  });

  it("an SSE server is refused with invalid params naming it", async () => {
    adapter = await startAdapter();
    await adapter.initialize();
    await expect(
      adapter.newSession(undefined, {
        mcpServers: [{ type: "sse", name: "old-events", url: "http://127.0.0.1:9/sse", headers: [] }],
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("old-events") });
  });
});

describe("a client's MCP server named like one of the user's config.toml", () => {
  /**
   * config.toml has the stdio test server as `notes` (its entry ending in `userLine(log)`), the
   * editor passes the same command as `notes` (with `clientEnv(log)`), and the model calls
   * `lookup_word` in `namespace` once. Returns the file the server logs its calls to.
   */
  async function promptWithUserNotes(
    userLine: (log: string) => string,
    namespace: string,
    clientEnv: acp.EnvVariable[] | ((log: string) => acp.EnvVariable[]),
  ): Promise<string> {
    logDir = await mkdtemp(path.join(os.tmpdir(), "cca-mcp-"));
    const log = path.join(logDir, "calls.jsonl");
    const { setupClient } = answerPermissions("allow_once");
    adapter = await startAdapter({
      setupClient,
      responses: [{ items: [toolCall("lookup_word", { word: "x" }, { namespace, callId: "m1" })] }, done],
      extraConfig: `[mcp_servers.notes]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(SERVER)}]\n${userLine(log)}`,
    });
    await adapter.initialize();
    const env = typeof clientEnv === "function" ? clientEnv(log) : clientEnv;
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [{ name: "notes", command: process.execPath, args: [SERVER], env }],
    });
    await adapter.prompt(sessionId, "go");
    return log;
  }

  it("gets nothing of the user's server (its env, its secrets): it runs under a name of its own, and the model calls it by that name", async () => {
    const { setupClient } = answerPermissions("allow_once");
    adapter = await startAdapter({
      setupClient,
      responses: [
        { items: [toolCall("lookup_word", { word: "x" }, { namespace: "mcp__notes_2", callId: "m1" })] },
        done,
      ],
      extraConfig: `[mcp_servers.notes]\ncommand = "/nonexistent"\nenv = { USER_SECRET_TOKEN = "s3cret-from-config" }`,
    });
    await adapter.initialize();
    logDir = await mkdtemp(path.join(os.tmpdir(), "cca-mcp-"));
    const envFile = path.join(logDir, "env.txt");
    const log = path.join(logDir, "calls.jsonl");
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [
        {
          name: "notes",
          command: "/bin/sh",
          args: ["-c", `env > '${envFile}'; exec '${process.execPath}' '${SERVER}'`],
          env: [{ name: "MCP_CALL_LOG", value: log }],
        },
      ],
    });
    await adapter.prompt(sessionId, "go");
    const env = await readFile(envFile, "utf8");
    expect(env).toContain(`MCP_CALL_LOG=${log}`);
    expect(env).not.toContain("s3cret-from-config");
    expect(await readFile(log, "utf8")).toContain("lookup_word");
  });

  it("the same server as the user's (same command and arguments, as an editor passes its own copy) runs once, as config.toml has it", async () => {
    const log = await promptWithUserNotes((log) => `env = { MCP_CALL_LOG = ${JSON.stringify(log)} }`, "mcp__notes", []);
    expect(await readFile(log, "utf8")).toContain("lookup_word");
    expect(JSON.stringify(adapter!.fake.requests[0]!.body.tools)).not.toContain("notes_2");
  });

  it("the same server the user turned off in config.toml (enabled = false) still runs for the editor that asks for it", async () => {
    const log = await promptWithUserNotes(
      () => "enabled = false",
      "mcp__notes_2",
      (log) => [{ name: "MCP_CALL_LOG", value: log }],
    );
    expect(await readFile(log, "utf8")).toContain("lookup_word");
  });

  it("over another transport than the user's (http against stdio) still opens the session", async () => {
    adapter = await startAdapter({ extraConfig: `[mcp_servers.notes]\ncommand = "/bin/true"` });
    await adapter.initialize();
    await expect(
      adapter.newSession(undefined, {
        mcpServers: [{ type: "http", name: "notes", url: "http://127.0.0.1:9/mcp", headers: [] }],
      }),
    ).resolves.toHaveProperty("sessionId");
  });
});

describe("an MCP server that fails to start", () => {
  it("is named to the user (a failed tool call with Codex's error) and to the model on its next prompt, once", async () => {
    adapter = await startAdapter({ responses: [done, done] });
    await adapter.initialize();
    const reported = adapter.waitForLine((m) => JSON.stringify(m).includes('"toolCallId":"mcp-startup-broken"'));
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [{ name: "broken", command: "/nonexistent/mcp-server", args: [], env: [] }],
    });
    // Codex starts servers in the background: the model hears of a failure with the prompt after it.
    await reported;
    await adapter.prompt(sessionId, "use the broken server");
    const shown = adapter
      .updatesOf(sessionId)
      .find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "mcp-startup-broken");
    expect(shown).toMatchObject({
      title: "MCP server broken failed to start",
      status: "failed",
      content: [
        {
          type: "content",
          content: { type: "text", text: expect.stringMatching(/broken.*failed to start.*No such file/) },
        },
      ],
    });
    const told = JSON.stringify(adapter.fake.requests[0]!.body.input);
    expect(told).toContain('The MCP server \\"broken\\" is not available in this session');
    // Told once: the next prompt does not repeat it (the model's history has it).
    await adapter.prompt(sessionId, "again");
    const again = JSON.stringify(adapter.fake.requests[1]!.body.input);
    expect(again.split("is not available in this session").length - 1).toBe(1);
  });

  it("a token in its address (Codex quotes it in the error) is kept out of the log, the card and the model's context", async () => {
    adapter = await startAdapter({ responses: [done] });
    await adapter.initialize();
    const reported = adapter.waitForLine((m) => JSON.stringify(m).includes('"toolCallId":"mcp-startup-remote"'));
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [{ type: "http", name: "remote", url: "http://127.0.0.1:9/mcp?token=URL-SECRET-666", headers: [] }],
    });
    await reported;
    await adapter.prompt(sessionId, "hello");
    expect(JSON.stringify(adapter.updatesOf(sessionId))).toContain("token=…");
    expect(JSON.stringify(adapter.updatesOf(sessionId))).not.toContain("URL-SECRET-666");
    expect(JSON.stringify(adapter.fake.requests[0]!.body.input)).not.toContain("URL-SECRET-666");
    // At info and above (the tests log at debug; the address is the client's own there).
    const logged = adapter
      .stderr()
      .split("\n")
      .filter((line) => /"level":([3-9]\d)/.test(line));
    expect(logged.join("\n")).toContain("an MCP server failed to start");
    expect(logged.join("\n")).not.toContain("URL-SECRET-666");
  });
});

describe("an MCP server asking the user (elicitation)", () => {
  async function ask(caps: acp.ClientCapabilities, answer: acp.CreateElicitationResponse) {
    const asked: acp.CreateElicitationRequest[] = [];
    adapter = await startAdapter({
      responses: [{ items: [toolCall("ask_color", {}, { namespace: "mcp__test_notes", callId: "ask1" })] }, done],
      setupClient: (app) =>
        app.onRequest(acp.methods.client.elicitation.create, ({ params }) => {
          asked.push(params);
          return answer;
        }),
    });
    await adapter.initialize(caps);
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [{ name: "test notes!", command: process.execPath, args: [SERVER], env: [] }],
    });
    expect((await adapter.prompt(sessionId, "ask me")).stopReason).toBe("end_turn");
    // What the model got back from the tool: the server's own account of the answer.
    return { asked, output: JSON.stringify(adapter.fake.requests[1]!.body.input) };
  }

  it("is asked as an ACP form (titled choices kept), and the answer reaches the server", async () => {
    const { asked, output } = await ask(
      { elicitation: { form: {} } },
      { action: "accept", content: { color: "blue", shade: 3 } },
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      mode: "form",
      message: "test_notes: Pick a color",
      requestedSchema: {
        type: "object",
        properties: {
          color: {
            type: "string",
            title: "Color",
            oneOf: [
              { const: "red", title: "Red" },
              { const: "blue", title: "Blue" },
            ],
          },
          shade: { type: "integer", minimum: 1, maximum: 9 },
        },
        required: ["color"],
      },
    });
    expect(output).toMatch(/answer: .*action.*accept/);
    expect(output).toMatch(/color.{0,8}blue/);
  });

  it("without form support the client is not asked and the server hears a decline", async () => {
    const { asked, output } = await ask({}, { action: "accept", content: { color: "red" } });
    expect(asked).toHaveLength(0);
    expect(output).toMatch(/answer: .*action.*decline/);
  });
});
