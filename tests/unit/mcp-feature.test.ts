// The file-tools session feature in-process: what prepare adds to the thread settings (for new
// and resumed threads), how attach binds the endpoint to the session (mode, roots, editor
// capabilities, permission prompts, cancel), and that detach removes the endpoint.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { fileToolsFeature, FILE_TOOLS_SERVER } from "../../src/editor-files/feature.js";
import type { AgentServices, SessionOpening } from "../../src/core/feature-api.js";
import { AcpSession, type ThreadSettings } from "../../src/core/session/session.js";
import { FileToolsServer } from "../../src/editor-files/endpoint/index.js";
import type { CodexServerRequest } from "../../src/codex/index.js";
import { RequestRouter } from "../../src/core/request-routes.js";
import { FakeCodexClient, fakeHost } from "../support/fake-codex-client.js";

const silent = pino({ level: "silent" });
type CallResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

type Sent = { method: string; params: any; options?: { cancellationSignal?: AbortSignal } };

function fakeServices(
  caps: acp.ClientCapabilities,
  answer: (s: Sent) => Promise<unknown>,
): AgentServices & { sent: Sent[] } {
  const sent: Sent[] = [];
  const ctx = {
    request: (method: string, params: unknown, options?: Sent["options"]) => {
      const s = { method, params, options };
      sent.push(s);
      return answer(s);
    },
  };
  return {
    sent,
    // The user's config as codex reads it: none here (the hooks' own settings are then the agent's).
    host: { userConfig: { read: async () => undefined } } as never,
    log: silent,
    client: () => ctx as unknown as acp.AgentContext,
    clientCapabilities: () => caps,
    sessions: new Map(),
  };
}

function newSession(id: string, settings: ThreadSettings): AcpSession {
  return new AcpSession(id, settings, {
    host: {} as never,
    log: silent,
    sendUpdate: async () => undefined,
    display: () => ({}),
    answerServerRequest: async () => ({}),
  });
}

/** A session with a prompt running on a stand-in codex that answers turn/start and nothing more. */
function sessionWithRunningPrompt(
  id: string,
  settings: ThreadSettings,
): { session: AcpSession; prompt: Promise<unknown> } {
  const codex = new FakeCodexClient({
    answers: { "turn/start": () => ({ turn: { id: "turn-1", status: "inProgress" } }) },
  });
  const session = new AcpSession(id, settings, {
    host: fakeHost(codex),
    log: silent,
    sendUpdate: async () => undefined,
    display: () => ({}),
    answerServerRequest: async () => ({}),
  });
  session.bind(codex.client, 1);
  return { session, prompt: session.prompt([{ type: "text", text: "write it", text_elements: [] }]) };
}

async function connect(settings: ThreadSettings): Promise<Client> {
  const entry = (settings.config!.mcp_servers as Record<string, { url: string; http_headers: Record<string, string> }>)[
    FILE_TOOLS_SERVER
  ]!;
  const client = new Client({ name: "t", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.http_headers } }),
  );
  return client;
}

describe("file tools feature", () => {
  const server = new FileToolsServer({ log: silent });
  let dir: string;
  let ws: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcp-feature-")));
    ws = path.join(dir, "ws");
    fs.mkdirSync(ws);
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("prepare registers the endpoint in config.mcp_servers (keeping other servers), auto-approved by codex, with instructions", async () => {
    const feature = fileToolsFeature({ server });
    const services = fakeServices({}, async () => ({}));
    for (const kind of ["new", "load", "resume"] as const) {
      const settings: ThreadSettings = {
        cwd: ws,
        developerInstructions: "Be brief.",
        config: { model_verbosity: "low", mcp_servers: { other: { url: "http://x" } } },
      };
      await feature.prepare!({ kind, request: {} as never, settings, key: `prep-${kind}` }, services);
      const servers = settings.config!.mcp_servers as Record<string, any>;
      expect(servers.other).toEqual({ url: "http://x" });
      expect(settings.config!.model_verbosity).toBe("low");
      expect(servers[FILE_TOOLS_SERVER]).toMatchObject({
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/[0-9a-f]{32}$/),
        http_headers: { Authorization: expect.stringMatching(/^Bearer \S{32,}$/) },
        default_tools_approval_mode: "approve",
        // Codex's 60 s default would give up a call whose prompt waits on the user.
        tool_timeout_sec: 3600,
        tools: { write_text_file: { approval_mode: "approve" } },
      });
      expect(settings.developerInstructions).toMatch(/^Be brief\.\n\n.*acp_fs/s);
      server.unregister(`prep-${kind}`);
    }
  });

  it("the session's mode and roots decide writes; reads use the editor only with the capability", async () => {
    const feature = fileToolsFeature({ server });
    const services = fakeServices({ fs: { readTextFile: true } }, async (s) => {
      if (s.method === "fs/read_text_file") return { content: "from the editor\n" };
      throw new Error(`unexpected ${s.method}`);
    });
    const settings: ThreadSettings = { cwd: ws };
    const opening: SessionOpening = { kind: "new", request: {} as never, settings, key: "mode-key" };
    await feature.prepare!(opening, services);
    const session = newSession("thread-mode", settings);
    await feature.attach!(session, opening, services);
    const client = await connect(settings);
    try {
      const file = path.join(ws, "f.txt");
      fs.writeFileSync(file, "on disk\n");
      const read = (await client.callTool({ name: "read_text_file", arguments: { path: file } })) as CallResult;
      expect(read.structuredContent).toMatchObject({ content: "from the editor\n" });
      expect(services.sent.map((s) => [s.method, s.params.sessionId])).toEqual([["fs/read_text_file", "thread-mode"]]);

      session.update({ mode: "read-only" });
      const denied = (await client.callTool({
        name: "write_text_file",
        arguments: { path: file, content: "x" },
      })) as CallResult;
      expect(denied.isError).toBe(true);
      expect(denied.structuredContent).toEqual({
        code: -32002,
        message: `Permission denied: ${file} (session mode is read-only)`,
      });
      expect(fs.readFileSync(file, "utf8")).toBe("on disk\n");

      session.update({ mode: "auto" });
      const ok = (await client.callTool({
        name: "write_text_file",
        arguments: { path: file, content: "new\n" },
      })) as CallResult;
      expect(ok.structuredContent).toEqual({ success: true, bytes_written: 4, created: false });
      expect(fs.readFileSync(file, "utf8")).toBe("new\n"); // no writeTextFile capability: node:fs

      const outside = path.join(dir, "elsewhere.txt");
      session.update({ mode: "full-access" });
      const full = (await client.callTool({
        name: "write_text_file",
        arguments: { path: outside, content: "y\n" },
      })) as CallResult;
      expect(full.structuredContent).toMatchObject({ success: true, created: true });
      expect(services.sent.some((s) => s.method === "session/request_permission")).toBe(false);

      session.update({ mode: "auto" });
      session.update({ roots: [ws, dir] });
      const widened = (await client.callTool({
        name: "write_text_file",
        arguments: { path: outside, content: "z\n" },
      })) as CallResult;
      expect(widened.structuredContent).toMatchObject({ success: true, created: false });
    } finally {
      await client.close();
      await feature.detach!(session, services);
    }
  });

  it("cancelling the prompt withdraws a pending permission request and the call writes nothing (-32007)", async () => {
    const feature = fileToolsFeature({ server });
    let seen!: () => void;
    const asked = new Promise<void>((resolve) => (seen = resolve));
    const services = fakeServices({}, (s) => {
      if (s.method !== "session/request_permission") return Promise.reject(new Error("unexpected"));
      seen();
      // An editor that never answers: only the cancellation ends the wait.
      return new Promise((_resolve, reject) =>
        s.options?.cancellationSignal?.addEventListener("abort", () => reject(new Error("cancelled"))),
      );
    });
    const settings: ThreadSettings = { cwd: ws };
    const opening: SessionOpening = { kind: "new", request: {} as never, settings, key: "cancel-key" };
    await feature.prepare!(opening, services);
    const { session, prompt } = sessionWithRunningPrompt("thread-cancel", settings);
    await feature.attach!(session, opening, services);
    const client = await connect(settings);
    try {
      const outside = path.join(dir, "never.txt");
      const pending = client.callTool({
        name: "write_text_file",
        arguments: { path: outside, content: "no\n" },
      }) as Promise<CallResult>;
      await asked;
      const req = services.sent[0]!.params as acp.RequestPermissionRequest;
      expect(req.sessionId).toBe("thread-cancel");
      expect(req.toolCall).toMatchObject({
        kind: "edit",
        locations: [{ path: outside, line: 1 }],
        content: [{ type: "diff", path: outside, oldText: null, newText: "no\n" }],
      });
      // The user cancels the prompt: the file tool's pending prompt is withdrawn, nothing is written.
      await session.cancel();
      const r = await pending;
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ code: -32007 });
      expect((r.structuredContent as { message: string }).message).toContain("Nothing was changed");
      expect(fs.existsSync(outside)).toBe(false);
    } finally {
      await client.close();
      await feature.detach!(session, services);
      expect(await prompt).toMatchObject({ stopReason: "cancelled" });
    }
  });

  it("detach removes the session's endpoint", async () => {
    const feature = fileToolsFeature({ server });
    const services = fakeServices({}, async () => ({}));
    const settings: ThreadSettings = { cwd: ws };
    const opening: SessionOpening = { kind: "new", request: {} as never, settings, key: "detach-key" };
    await feature.prepare!(opening, services);
    const session = newSession("thread-detach", settings);
    await feature.attach!(session, opening, services);
    const before = server.endpointCount;
    await feature.detach!(session, services);
    expect(server.endpointCount).toBe(before - 1);
    await expect(connect(settings)).rejects.toThrow();
  });

  it("auto-accepts codex's elicitations for our own server only", async () => {
    const services = fakeServices({}, async () => ({}));
    const session = newSession("thread-e", { cwd: ws });
    // The feature claims one route, and the router gives it only its own server's elicitations.
    const router = new RequestRouter([fileToolsFeature()]);
    const request = (method: string, params: Record<string, unknown>) =>
      ({ method, params }) as unknown as CodexServerRequest;
    await expect(
      router.answer(
        session,
        request("mcpServer/elicitation/request", { serverName: FILE_TOOLS_SERVER }),
        services,
        new AbortController().signal,
      ),
    ).resolves.toMatchObject({ action: "accept" });
    expect(
      router.answer(
        session,
        request("mcpServer/elicitation/request", { serverName: "someone-else" }),
        services,
        new AbortController().signal,
      ),
    ).toBeUndefined();
    expect(
      router.answer(
        session,
        request("item/commandExecution/requestApproval", {}),
        services,
        new AbortController().signal,
      ),
    ).toBeUndefined();
  });
});
