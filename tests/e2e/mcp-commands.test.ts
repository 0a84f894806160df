// Issue 28: MCP servers the user can fix from the editor. `/mcp` says each server's sign-in state
// and what to do; `/mcp reconnect` has Codex start again the servers that are down; `/mcp login`
// runs a server's OAuth sign-in, its page shown through the client (URL elicitation, or as text).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { messageText, modelOutputFor, startAdapter, type Adapter } from "../support/adapter.js";
import { toolCall, type ScriptedResponse } from "../support/fake-model.js";
import { startOauthMcpServer, type OauthMcpServer } from "../support/oauth-mcp-server.js";
import { waitFor } from "../support/wait-for.js";

const SERVER = path.resolve(import.meta.dirname, "../support/stdio-mcp-server.mjs");
// Codex keeps MCP sign-ins in CODEX_HOME, never in this machine's keyring.
const FILE_CREDENTIALS = { CODEX_ACP_CODEX_ARGS: '-c mcp_oauth_credentials_store_mode="file"' };
const done: ScriptedResponse = { items: [{ type: "message", text: "done" }] };

let adapter: Adapter | undefined;
let oauth: OauthMcpServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await adapter?.close();
  await oauth?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  adapter = oauth = dir = undefined;
});

/** Sends `/mcp` until its answer (this prompt's text only) matches `pattern`; returns that answer. */
async function mcpUntil(sessionId: string, pattern: RegExp): Promise<string> {
  let answer = "";
  await waitFor(
    async () => {
      const before = messageText(adapter!.updatesOf(sessionId)).length;
      expect((await adapter!.prompt(sessionId, "/mcp")).stopReason).toBe("end_turn");
      answer = messageText(adapter!.updatesOf(sessionId)).slice(before);
      return pattern.test(answer);
    },
    () => `/mcp to show ${pattern}; it said:\n${answer}`,
  );
  return answer;
}

/** The text a prompt added to the session's agent messages. */
async function answerTo(sessionId: string, text: string): Promise<string> {
  const before = messageText(adapter!.updatesOf(sessionId)).length;
  expect((await adapter!.prompt(sessionId, text)).stopReason).toBe("end_turn");
  return messageText(adapter!.updatesOf(sessionId)).slice(before);
}

type Card = { status?: string | null; text: string };
/** The sign-in card's latest status and text (the `mcp-login-*` tool call). */
function loginCard(sessionId: string): Card | undefined {
  let card: Card | undefined;
  for (const u of adapter!.updatesOf(sessionId)) {
    if (
      (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") ||
      !u.toolCallId.startsWith("mcp-login-")
    )
      continue;
    const text = (u.content ?? [])
      .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
      .join("");
    card = { status: u.status ?? card?.status, text: text || (card?.text ?? "") };
  }
  return card;
}

describe("/mcp reconnect", () => {
  it("starts again a stdio server that stopped, and its tools work again", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "cca-mcp-"));
    const startLog = path.join(dir, "starts.log");
    const starts = async (): Promise<string[]> =>
      (await readFile(startLog, "utf8").catch(() => "")).split("\n").filter(Boolean);
    adapter = await startAdapter({
      responses: [
        { items: [toolCall("lookup_word", { word: "ossify" }, { namespace: "mcp__test_notes", callId: "r1" })] },
        done,
      ],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [
        {
          name: "test notes!",
          command: process.execPath,
          args: [SERVER],
          env: [{ name: "MCP_START_LOG", value: startLog }],
        },
      ],
    });
    // The session's own connection is the first start (a later /mcp may start copies to list tools).
    await waitFor(async () => (await starts()).length > 0, "the server to start");
    const [first] = await starts();
    await mcpUntil(sessionId, /\*\*test_notes\*\*: connected/);
    process.kill(Number(first), "SIGKILL");
    expect(await mcpUntil(sessionId, /\*\*test_notes\*\*: failed/)).toContain("/mcp reconnect");

    const startsBefore = (await starts()).length;
    const answer = await answerTo(sessionId, "/mcp reconnect test_notes");
    expect(answer).toMatch(/\*\*test_notes\*\*: connected, 3 tools.*restarted/);
    expect((await starts()).length).toBeGreaterThan(startsBefore);

    expect((await adapter.prompt(sessionId, "define ossify")).stopReason).toBe("end_turn");
    expect(modelOutputFor(adapter, "r1")).toContain("definition of ossify");
  }, 60_000);

  it("a server that failed to start and was fixed: started, and the model is told it is back", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "cca-mcp-"));
    const gate = path.join(dir, "fixed");
    adapter = await startAdapter({
      responses: [
        { items: [toolCall("lookup_word", { word: "ossify" }, { namespace: "mcp__test_notes", callId: "g1" })] },
        done,
      ],
    });
    await adapter.initialize();
    const failed = adapter.waitForLine((m) => JSON.stringify(m).includes('"toolCallId":"mcp-startup-test_notes"'));
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [
        {
          name: "test notes!",
          command: process.execPath,
          args: [SERVER],
          env: [{ name: "MCP_REQUIRE_FILE", value: gate }],
        },
      ],
    });
    expect(JSON.stringify(await failed)).toContain("/mcp reconnect");
    await writeFile(gate, "");
    expect(await answerTo(sessionId, "/mcp reconnect")).toMatch(/\*\*test_notes\*\*: connected, 3 tools.*restarted/);

    expect((await adapter.prompt(sessionId, "define ossify")).stopReason).toBe("end_turn");
    expect(modelOutputFor(adapter, "g1")).toContain("definition of ossify");
    const told = JSON.stringify(adapter.fake.requests[0]!.body.input);
    expect(told).toContain('The MCP server \\"test_notes\\" is available again');
    expect(told).not.toContain("is not available in this session");
  }, 60_000);

  it("names the session's servers when asked for one it does not have", async () => {
    adapter = await startAdapter();
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    expect(await answerTo(sessionId, "/mcp reconnect nosuch")).toMatch(/No MCP server named "nosuch".*acp_fs/s);
  });
});

describe("/mcp and OAuth sign-in", () => {
  async function start(
    opts: {
      refuse?: boolean;
      caps?: acp.ClientCapabilities;
      answer?: acp.CreateElicitationResponse;
      responses?: ScriptedResponse[];
    } = {},
  ) {
    oauth = await startOauthMcpServer({ refuse: opts.refuse });
    const asked: acp.CreateElicitationRequest[] = [];
    const completed: string[] = [];
    adapter = await startAdapter({
      responses: opts.responses ?? [],
      env: FILE_CREDENTIALS,
      setupClient: (app) =>
        app
          .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
            asked.push(params);
            const answer = opts.answer ?? { action: "accept" };
            // The user opens the page once the editor has asked (a browser following the redirects).
            const url = params.mode === "url" ? params.url : undefined;
            if (answer.action === "accept" && typeof url === "string")
              setTimeout(() => void fetch(url).catch(() => undefined), 0);
            return answer;
          })
          .onNotification(
            acp.methods.client.elicitation.complete,
            ({ params }) => void completed.push(params.elicitationId),
          ),
    });
    await adapter.initialize(opts.caps ?? { elicitation: { url: {} } });
    const { sessionId } = await adapter.newSession(undefined, {
      mcpServers: [{ type: "http", name: "locked", url: oauth.url, headers: [] }],
    });
    return { sessionId, asked, completed };
  }

  it("/mcp says the server is not signed in and offers /mcp login; the sign-in goes through the editor's URL form and the server connects", async () => {
    const { sessionId, asked, completed } = await start({
      responses: [{ items: [toolCall("secret_word", {}, { namespace: "mcp__locked", callId: "s1" })] }, done],
    });
    expect(await mcpUntil(sessionId, /\*\*locked\*\*: needs sign-in/)).toMatch(
      /\*\*locked\*\*: needs sign-in; not signed in\b.*`\/mcp login locked`/,
    );

    const answer = await answerTo(sessionId, "/mcp login locked");
    expect(answer).toContain("locked");
    await waitFor(
      () => loginCard(sessionId)?.status === "completed",
      () => `the sign-in card to complete: ${JSON.stringify(loginCard(sessionId))}`,
    );
    expect(loginCard(sessionId)!.text).toMatch(/Signed in to locked.*connected/);
    expect(asked).toEqual([
      expect.objectContaining({
        mode: "url",
        sessionId,
        url: expect.stringContaining(`${new URL(oauth!.url).origin}/authorize?`),
        message: expect.stringContaining("locked"),
      }),
    ]);
    const [elicitation] = asked;
    expect(completed).toEqual([elicitation && "elicitationId" in elicitation ? elicitation.elicitationId : "?"]);

    expect(await mcpUntil(sessionId, /\*\*locked\*\*: connected/)).toMatch(
      /\*\*locked\*\*: connected, 1 tool; signed in with OAuth/,
    );
    expect((await adapter!.prompt(sessionId, "what is the secret?")).stopReason).toBe("end_turn");
    expect(modelOutputFor(adapter!, "s1")).toContain("the secret word is ossify");
    // The token stays between Codex and the server: never in the agent's logs or the editor's stream.
    expect(adapter!.stderr()).not.toContain(oauth!.token);
    expect(adapter!.stdoutLines.join("\n")).not.toContain(oauth!.token);
  }, 60_000);

  it("a refused sign-in is reported on its card, and the session goes on", async () => {
    const { sessionId, completed } = await start({ refuse: true, responses: [done] });
    await answerTo(sessionId, "/mcp login locked");
    await waitFor(
      () => loginCard(sessionId)?.status === "failed",
      () => `the sign-in card to fail: ${JSON.stringify(loginCard(sessionId))}`,
    );
    expect(loginCard(sessionId)!.text).toMatch(/Sign-in to locked failed: .+/);
    expect(completed).toHaveLength(1);
    expect((await adapter!.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
  }, 60_000);

  it("declining the page ends the sign-in at once; an unknown server is named", async () => {
    const { sessionId, asked } = await start({ answer: { action: "decline" } });
    await answerTo(sessionId, "/mcp login locked");
    await waitFor(
      () => loginCard(sessionId)?.status === "failed",
      () => `the sign-in card to fail: ${JSON.stringify(loginCard(sessionId))}`,
    );
    expect(asked).toHaveLength(1);
    expect(loginCard(sessionId)!.text).toContain("not opened");
    expect(oauth!.paths).not.toContain("GET /authorize");
    expect(await answerTo(sessionId, "/mcp login nosuch")).toMatch(/could not start the sign-in to nosuch: .*nosuch/);
    expect(await answerTo(sessionId, "/mcp login")).toContain("/mcp login <server>");
  }, 60_000);

  it("a client without URL forms gets the page as text, and the sign-in still completes", async () => {
    const { sessionId, asked } = await start({ caps: {} });
    const answer = await answerTo(sessionId, "/mcp login locked");
    const url = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(answer)?.[1];
    expect(url, answer).toBeDefined();
    await fetch(url!);
    await waitFor(
      () => loginCard(sessionId)?.status === "completed",
      () => `the sign-in card to complete: ${JSON.stringify(loginCard(sessionId))}`,
    );
    expect(asked).toHaveLength(0);
  }, 60_000);
});
