// The embedded endpoint's MCP protocol on the wire (Streamable HTTP, JSON responses), message by
// message with raw HTTP: what the MCP specification says a server answers to a handshake, a
// notification, a request outside a session, a stale or deleted session, an unknown method, bad
// params and an unsupported protocol version. The MCP SDK's own client drives the same endpoint
// in mcp-tools.test.ts and mcp-endpoint-attacks.test.ts.
import http from "node:http";
import os from "node:os";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileAccess } from "../../src/editor-files/access/index.js";
import { FileToolsServer, callFileTool, type EndpointInfo } from "../../src/editor-files/endpoint/index.js";
import { waitFor } from "../support/wait-for.js";

const silent = pino({ level: "silent" });
const server = new FileToolsServer({ log: silent });
let endpoint: EndpointInfo;

type Reply = { status: number; headers: http.IncomingHttpHeaders; body: unknown };

function post(body: unknown, headers: Record<string, string> = {}, method = "POST"): Promise<Reply> {
  const url = new URL(endpoint.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...endpoint.headers,
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
  });
}

const initialize = (protocolVersion = "2025-06-18", id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "wire-test", version: "1" } },
});

/** A fresh MCP session on the endpoint: its id, after the initialized notification. */
async function openSession(): Promise<string> {
  const init = await post(initialize());
  const sessionId = init.headers["mcp-session-id"];
  expect(typeof sessionId).toBe("string");
  expect(
    (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": sessionId as string }))
      .status,
  ).toBe(202);
  return sessionId as string;
}

beforeAll(async () => {
  endpoint = await server.register("wire");
  const access = createFileAccess({ logger: silent });
  server.bind("wire", (name, args) => callFileTool(access, name, args, { cwd: os.tmpdir() }));
});
afterAll(() => server.close());

describe("the embedded MCP endpoint speaks MCP", () => {
  it("initialize: a session id header, the client's protocol version when supported, tools capability, server info", async () => {
    const reply = await post(initialize("2025-06-18", "init-1"));
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toMatch(/^application\/json/);
    expect(reply.headers["mcp-session-id"]).toMatch(/^[\x21-\x7e]+$/);
    expect(reply.body).toMatchObject({
      jsonrpc: "2.0",
      id: "init-1",
      result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "codex-cli-acp" } },
    });
  });

  it("initialize with a version it does not know: answers with the latest it supports", async () => {
    const reply = await post(initialize("1999-01-01"));
    const result = (reply.body as { result: { protocolVersion: string } }).result;
    expect(result.protocolVersion).not.toBe("1999-01-01");
    expect(result.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("initialize without params: -32602, and no session", async () => {
    const reply = await post({ jsonrpc: "2.0", id: 3, method: "initialize" });
    expect(reply.body).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(reply.headers["mcp-session-id"]).toBeUndefined();
  });

  it("tools/list, tools/call and ping within a session", async () => {
    const sid = await openSession();
    const list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, { "mcp-session-id": sid });
    const names = (list.body as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
    expect(names).toEqual(["read_text_file", "write_text_file", "apply_patch"]);
    const call = await post(
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "read_text_file", arguments: { path: "relative" } },
      },
      { "mcp-session-id": sid },
    );
    expect(call.body).toMatchObject({ id: 3, result: { isError: true, structuredContent: { code: -32600 } } });
    const ping = await post(
      { jsonrpc: "2.0", id: 4, method: "ping" },
      { "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" },
    );
    expect(ping.body).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
  });

  it("requests outside a session: 400 without a session id, 404 with an unknown one", async () => {
    const none = await post({ jsonrpc: "2.0", id: 5, method: "tools/list" });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 }, id: null });
    const unknown = await post(
      { jsonrpc: "2.0", id: 6, method: "tools/list" },
      { "mcp-session-id": "no-such-session" },
    );
    expect(unknown.status).toBe(404);
  });

  it("an unknown method is -32601; tools/call without a name is -32602; a non-JSON-RPC body is -32600", async () => {
    const sid = await openSession();
    const unknown = await post({ jsonrpc: "2.0", id: 7, method: "resources/list" }, { "mcp-session-id": sid });
    expect(unknown.body).toMatchObject({ id: 7, error: { code: -32601 } });
    const noName = await post(
      { jsonrpc: "2.0", id: 8, method: "tools/call", params: { arguments: {} } },
      { "mcp-session-id": sid },
    );
    expect(noName.body).toMatchObject({ id: 8, error: { code: -32602 } });
    const junk = await post({ hello: "world" }, { "mcp-session-id": sid });
    expect(junk.status).toBe(400);
    expect(junk.body).toMatchObject({ error: { code: -32600 }, id: null });
    const batch = await post([{ jsonrpc: "2.0", id: 9, method: "ping" }], { "mcp-session-id": sid });
    expect(batch.status).toBe(400);
    // An id of a type JSON-RPC does not allow: not a request, and not a notification to ignore.
    const badId = await post({ jsonrpc: "2.0", id: { x: 1 }, method: "ping" }, { "mcp-session-id": sid });
    expect(badId.status).toBe(400);
    expect(badId.body).toMatchObject({ error: { code: -32600 } });
  });

  it("an unsupported MCP-Protocol-Version header is 400", async () => {
    const sid = await openSession();
    const reply = await post(
      { jsonrpc: "2.0", id: 10, method: "ping" },
      { "mcp-session-id": sid, "mcp-protocol-version": "1999-01-01" },
    );
    expect(reply.status).toBe(400);
  });

  it("notifications and responses are accepted with 202 and no body", async () => {
    const sid = await openSession();
    const reply = await post({ jsonrpc: "2.0", id: 99, result: {} }, { "mcp-session-id": sid });
    expect(reply.status).toBe(202);
    expect(reply.body).toBeUndefined();
  });

  it("GET (no server-initiated stream here) is 405; DELETE ends the session and its id is 404 after", async () => {
    const sid = await openSession();
    expect((await post(undefined, { "mcp-session-id": sid }, "GET")).status).toBe(405);
    expect((await post(undefined, { "mcp-session-id": sid }, "DELETE")).status).toBe(200);
    expect((await post({ jsonrpc: "2.0", id: 11, method: "ping" }, { "mcp-session-id": sid })).status).toBe(404);
  });

  it("a new initialize leaves the earlier sessions working; only the oldest past 32 go", async () => {
    const first = await openSession();
    await post({ jsonrpc: "2.0", id: 12, method: "initialize", params: {} });
    const second = await openSession();
    for (const sid of [first, second])
      expect((await post({ jsonrpc: "2.0", id: 13, method: "ping" }, { "mcp-session-id": sid })).status).toBe(200);
    for (let i = 0; i < 32; i++) await openSession();
    expect((await post({ jsonrpc: "2.0", id: 14, method: "ping" }, { "mcp-session-id": first })).status).toBe(404);
  });

  it("DELETE without a session id is 400", async () => {
    expect((await post(undefined, {}, "DELETE")).status).toBe(400);
  });
});

describe("the server survives its own errors", () => {
  it("an error on the listening server (EMFILE on accept) is logged, not thrown, and the endpoint keeps serving", async () => {
    const own = new FileToolsServer({ log: silent });
    try {
      const info = await own.register("survivor");
      own.bind("survivor", async () => ({ content: [{ type: "text", text: "ok" }] }));
      // The node:http server behind the endpoint, as Node sees it: with no listener, emit("error") throws.
      const listening = (own as unknown as { server: http.Server }).server;
      expect(() =>
        listening.emit("error", Object.assign(new Error("accept EMFILE"), { code: "EMFILE" })),
      ).not.toThrow();
      const saved = endpoint;
      endpoint = info;
      try {
        expect((await post(initialize())).status).toBe(200);
      } finally {
        endpoint = saved;
      }
    } finally {
      await own.close();
    }
  });
});

describe("a tool call the client gives up on (issue 25)", () => {
  const given = { server: new FileToolsServer({ log: silent }) };
  let info: EndpointInfo;
  /** Signals of the calls that reached the caller, in order; each call waits until its signal fires. */
  const signals: AbortSignal[] = [];
  beforeAll(async () => {
    info = await given.server.register("giving-up");
    given.server.bind("giving-up", (_name, _args, signal) => {
      signals.push(signal);
      return new Promise((resolve) =>
        signal.addEventListener("abort", () =>
          resolve({ isError: true, content: [{ type: "text", text: "given up" }] }),
        ),
      );
    });
  });
  afterAll(() => given.server.close());

  const send = (body: unknown, sid?: string): http.ClientRequest => {
    const url = new URL(info.url);
    const req = http.request({
      host: "127.0.0.1",
      port: url.port,
      path: url.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        ...info.headers,
        ...(sid ? { "mcp-session-id": sid } : {}),
      },
    });
    req.on("error", () => undefined);
    req.end(JSON.stringify(body));
    return req;
  };
  const until = (pred: () => boolean): Promise<void> =>
    waitFor(
      pred,
      () =>
        `the calls' signals to be so (${signals.length} calls, aborted: ${signals.map((s) => s.aborted).join(", ")})`,
    );
  const call = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "write_text_file", arguments: {} },
  });

  it("a dropped HTTP request (Codex's deadline) aborts the call's signal", async () => {
    const sid = await openSessionOn(info);
    const req = send(call(10), sid);
    await until(() => signals.length === 1);
    expect(signals[0]!.aborted).toBe(false);
    req.destroy();
    await until(() => signals[0]!.aborted);
  });

  it("notifications/cancelled for the request id aborts that call only", async () => {
    const sid = await openSessionOn(info);
    send(call(11), sid);
    await until(() => signals.length === 2);
    send(call(12), sid);
    await until(() => signals.length === 3);
    send(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 12, reason: "turn interrupted" } },
      sid,
    );
    await until(() => signals[2]!.aborted);
    expect(signals[1]!.aborted).toBe(false);
    given.server.unregister("giving-up"); // closing the endpoint gives up what is still running
    await until(() => signals[1]!.aborted);
  });
});

/** openSession() against another endpoint. */
async function openSessionOn(info: EndpointInfo): Promise<string> {
  const saved = endpoint;
  endpoint = info;
  try {
    return await openSession();
  } finally {
    endpoint = saved;
  }
}

describe("a reopened session shares its predecessor's endpoint (issue 48)", () => {
  it("same URL, token and MCP sessions; calls go to the newest key once bound, back to the older when the newer goes unbound, and the endpoint lives while a key names it", async () => {
    // The calls that reached the endpoint, from its log: a call is known to wait before the test goes on.
    const logged: string[] = [];
    const own = new FileToolsServer({
      log: pino({ level: "debug" }, { write: (line: string) => void logged.push(line) }),
    });
    const arrived = (n: number) =>
      waitFor(() => logged.filter((l) => l.includes("mcp tools/call")).length >= n, `call ${n} to reach the endpoint`);
    const saved = endpoint;
    const answeredBy = (name: string) => async () => ({ content: [{ type: "text" as const, text: name }] });
    try {
      endpoint = await own.register("old");
      own.bind("old", answeredBy("old"));
      const mcp = await openSession();
      const call = async (id: number): Promise<unknown> =>
        (
          await post(
            { jsonrpc: "2.0", id, method: "tools/call", params: { name: "read_text_file", arguments: {} } },
            { "mcp-session-id": mcp },
          )
        ).body;

      // A reopening that is refused before its session attaches: the call waiting on it goes to the old one.
      const refused = await own.register("refused", { sameAs: "old" });
      expect(refused).toEqual(endpoint);
      const waiting = call(1);
      await arrived(1);
      own.unregister("refused");
      expect(await waiting).toMatchObject({ result: { content: [{ text: "old" }] } });

      // A reopening that succeeds: its session answers, and the old one's close leaves the endpoint up.
      expect(await own.register("new", { sameAs: "old" })).toEqual(endpoint);
      expect(own.endpointCount).toBe(1);
      const pending = call(2);
      await arrived(2);
      own.bind("new", answeredBy("new"));
      expect(await pending).toMatchObject({ result: { content: [{ text: "new" }] } });
      own.unregister("old");
      expect(await call(3)).toMatchObject({ result: { content: [{ text: "new" }] } });

      own.unregister("new");
      expect((await post(initialize())).status).toBe(404);
      expect(own.endpointCount).toBe(0);
    } finally {
      endpoint = saved;
      await own.close();
    }
  });
});
