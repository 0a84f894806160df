// The embedded MCP endpoint under attack (issue 14): anything on the machine can reach its
// loopback port. Browser origins, other methods, huge bodies, slow and idle connections are
// refused or cut, and codex's own connection keeps working.
import http from "node:http";
import net from "node:net";
import os from "node:os";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createFileAccess } from "../../src/editor-files/access/index.js";
import { FileToolsServer, callFileTool, type EndpointInfo } from "../../src/editor-files/endpoint/index.js";

const silent = pino({ level: "silent" });
const MAX_BODY = 1024 * 1024;
const server = new FileToolsServer({
  log: silent,
  limits: {
    maxBodyBytes: MAX_BODY,
    headersTimeoutMs: 500,
    requestTimeoutMs: 2000,
    maxConnections: 40,
    checkIntervalMs: 100,
  },
});
let endpoint: EndpointInfo;
let client: Client;

beforeAll(async () => {
  endpoint = await server.register("attacked");
  const access = createFileAccess({ logger: silent });
  server.bind("attacked", (name, args) => callFileTool(access, name, args, { cwd: os.tmpdir() }));
  client = new Client({ name: "codex-like", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: endpoint.headers } }),
  );
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const url = (): URL => new URL(endpoint.url);

function send(opts: { method?: string; headers?: Record<string, string | number>; body?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: url().port,
        path: url().pathname,
        method: opts.method ?? "POST",
        headers: { "content-type": "application/json", ...endpoint.headers, ...opts.headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

async function stillWorks(): Promise<void> {
  const r = (await client.callTool({ name: "read_text_file", arguments: { path: "relative" } })) as {
    structuredContent?: { code?: number };
  };
  expect(r.structuredContent?.code).toBe(-32600); // a real answer from the tool
}

describe("the MCP endpoint refuses", () => {
  it("any browser Origin, even with the right token (403)", async () => {
    expect(await send({ headers: { origin: "http://evil.example" }, body: "{}" })).toBe(403);
    expect(await send({ headers: { origin: "null" }, body: "{}" })).toBe(403);
  });

  it("methods the transport does not use (405)", async () => {
    for (const method of ["PUT", "PATCH", "OPTIONS", "TRACE"]) expect(await send({ method }), method).toBe(405);
  });

  it("a body declared over the limit, before reading it (413)", async () => {
    expect(await send({ headers: { "content-length": 100 * 1024 * 1024 } })).toBe(413);
  });

  it("a streamed 100 MB body: 413 once past the limit, before the body is over, then the connection cut", async () => {
    const total = 100 * 1024 * 1024;
    const socket = net.connect(Number(url().port), "127.0.0.1");
    // The server cuts us off mid-body: a reset (its buffers hold bytes it never read) ends our writes.
    socket.on("error", () => undefined);
    let answer = "";
    let sentWhenAnswered: number | undefined;
    let sent = 0;
    socket.on("data", (chunk: Buffer) => {
      sentWhenAnswered ??= sent;
      answer += chunk.toString("latin1");
    });
    // (Not events.once: it rejects on the 'error' that the cut is.)
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    // One chunk of 100 MB (chunked encoding: nothing declares the size up front).
    socket.write(
      `POST ${url().pathname} HTTP/1.1\r\nHost: 127.0.0.1:${url().port}\r\nContent-Type: application/json\r\n` +
        `Authorization: ${endpoint.headers.Authorization}\r\nTransfer-Encoding: chunked\r\n\r\n${total.toString(16)}\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    // Sent until the server stops us, past its answer too: a server that swallowed the rest would take it all.
    while (sent < total && !socket.destroyed) {
      sent += chunk.length;
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), closed]);
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(sentWhenAnswered).toBeLessThan(total); // refused while the body was still coming
    expect(sent).toBeLessThan(total); // and cut: the rest could not be sent
    await stillWorks();
  });

  it("a slowloris client is cut once its headers take too long", async () => {
    const socket = net.connect(Number(url().port), "127.0.0.1");
    socket.on("error", () => undefined);
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(`POST ${url().pathname} HTTP/1.1\r\nHost: 127.0.0.1:${url().port}\r\n`); // and never the rest
    // We never end it: only the server can (the test's own timeout fails a server that never does).
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /); // cut by the headers timeout, not answered as a request
    await stillWorks();
  });

  it("connections past the cap are refused at once, while the ones under it are kept", async () => {
    // Its own server: a cap of 5 and a silence limit past the test's timeout, so only the cap closes anything.
    const capped = new FileToolsServer({ log: silent, limits: { maxConnections: 5, headersTimeoutMs: 120_000 } });
    const port = await capped.start();
    const connect = (): Promise<net.Socket> =>
      new Promise((resolve, reject) => {
        const s = net.connect(port, "127.0.0.1", () => resolve(s));
        s.on("error", reject);
      });
    try {
      const kept: net.Socket[] = [];
      for (let i = 0; i < 5; i++) kept.push(await connect());
      const sixth = await connect(); // the kernel completes the handshake; the server closes it on accept
      sixth.on("error", () => undefined);
      await new Promise<void>((resolve) => (sixth.destroyed ? resolve() : sixth.once("close", () => resolve())));
      expect(kept.filter((s) => s.destroyed)).toEqual([]);
    } finally {
      await capped.close();
    }
  });

  it("hundreds of idle connections are closed unanswered; codex's calls keep working", async () => {
    const endings = await Promise.all(
      Array.from(
        { length: 200 },
        () =>
          new Promise<string>((resolve) => {
            let answer = "";
            const s = net.connect(Number(url().port), "127.0.0.1");
            s.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
            s.on("error", () => undefined);
            // We never end one: each closes when the server refuses it past the cap or cuts it for its silence.
            s.once("close", () => resolve(answer));
          }),
      ),
    );
    expect(endings.filter((answer) => answer !== "")).toEqual([]);
    await stillWorks();
  });
});

describe("the session's hook address (command-changes/hooks.ts)", () => {
  /** A request to `path` on the server; the status and body. */
  function hookRequest(
    path: string,
    opts: { method?: string; body?: string; host?: string } = {},
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: url().port,
          path,
          method: opts.method ?? "POST",
          headers: { host: opts.host ?? `127.0.0.1:${url().port}` },
        },
        (res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end(opts.body);
    });
  }

  it("answers its hooks only: bound, POST, one JSON object, from a loopback Host; the MCP token is no key to it, nor is another path", async () => {
    const seen: unknown[] = [];
    const hooked = await server.register("hooked");
    server.bind(
      "hooked",
      async () => ({ content: [] }),
      async (input) => (seen.push(input), "printed"),
    );
    expect(hooked.hook.path).toMatch(/^\/hook\/[0-9a-f]{48}$/);
    expect(await hookRequest(hooked.hook.path, { body: JSON.stringify({ tool_use_id: "c1" }) })).toEqual({
      status: 200,
      body: "printed",
    });
    expect(seen).toEqual([{ tool_use_id: "c1" }]);
    expect((await hookRequest(hooked.hook.path, { body: "{not json" })).status).toBe(400);
    expect((await hookRequest(hooked.hook.path, { method: "GET" })).status).toBe(404);
    expect((await hookRequest(hooked.hook.path, { body: "{}", host: "evil.example:80" })).status).toBe(403);
    expect((await hookRequest(`/hook/${"0".repeat(48)}`, { body: "{}" })).status).toBe(404);
    // The MCP endpoint's URL is not the hook's, and an endpoint without hooks has none.
    expect((await hookRequest(endpoint.hook.path, { body: "{}" })).status).toBe(404);
    // Gone with its session.
    server.unregister("hooked");
    expect((await hookRequest(hooked.hook.path, { body: "{}" })).status).toBe(404);
    expect(seen).toHaveLength(1);
    await stillWorks();
  });
});
