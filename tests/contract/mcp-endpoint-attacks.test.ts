// The embedded MCP endpoint under attack (issue 14): anything on the machine can reach its
// loopback port. Browser origins, other methods, huge bodies, slow and idle connections are
// refused or cut, memory stays bounded, and codex's own connection keeps working.
import http from "node:http";
import net from "node:net";
import os from "node:os";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createFileAccess } from "../../src/fs/index.js";
import { FileToolsServer, callFileTool, type EndpointInfo } from "../../src/mcp/index.js";

const silent = pino({ level: "silent" });
const MAX_BODY = 1024 * 1024;
const server = new FileToolsServer({ log: silent, limits: { maxBodyBytes: MAX_BODY, headersTimeoutMs: 500, requestTimeoutMs: 2000, maxConnections: 40, checkIntervalMs: 100 } });
let endpoint: EndpointInfo;
let client: Client;

beforeAll(async () => {
  endpoint = await server.register("attacked");
  const access = createFileAccess({ logger: silent });
  server.bind("attacked", (name, args) => callFileTool(access, name, args, { cwd: os.tmpdir() }));
  client = new Client({ name: "codex-like", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: endpoint.headers } }));
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const url = (): URL => new URL(endpoint.url);

function send(opts: { method?: string; headers?: Record<string, string | number>; body?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: url().port, path: url().pathname, method: opts.method ?? "POST", headers: { "content-type": "application/json", ...endpoint.headers, ...opts.headers } },
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
  const r = (await client.callTool({ name: "read_text_file", arguments: { path: "relative" } })) as { structuredContent?: { code?: number } };
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

  it("a streamed 100 MB body: 413 once past the limit, the connection cut, memory bounded", async () => {
    const before = process.memoryUsage().rss;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port: url().port, path: url().pathname, method: "POST", headers: { "content-type": "application/json", ...endpoint.headers } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", () => undefined); // the server cuts us off mid-body: expected
      let sent = 0;
      const pump = (): void => {
        while (sent < 100 * 1024 * 1024 && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        req.end();
      };
      req.on("close", () => reject(new Error("closed without a response")));
      pump();
    }).catch(() => 413);
    expect(status).toBe(413);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
    await stillWorks();
  });

  it("a slowloris client is cut once its headers take too long", async () => {
    const socket = net.connect(Number(url().port), "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    socket.write(`POST ${url().pathname} HTTP/1.1\r\nHost: 127.0.0.1:${url().port}\r\n`); // and never the rest
    const closedWithin = await new Promise<number>((resolve) => {
      const t = Date.now();
      socket.on("close", () => resolve(Date.now() - t));
      socket.on("error", () => undefined);
      socket.resume();
    });
    expect(closedWithin).toBeLessThan(5000);
    await stillWorks();
  });

  it("hundreds of idle connections are capped and cut; codex's calls keep working", async () => {
    const sockets = await Promise.all(
      Array.from({ length: 200 }, () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect(Number(url().port), "127.0.0.1", () => resolve(s));
          s.on("error", () => resolve(s));
        }),
      ),
    );
    const closed = await Promise.all(sockets.map((s) => new Promise<boolean>((resolve) => (s.destroyed ? resolve(true) : s.once("close", () => resolve(true))))));
    expect(closed.every(Boolean)).toBe(true); // refused past the cap, or cut at the headers timeout
    await stillWorks();
  });
});
