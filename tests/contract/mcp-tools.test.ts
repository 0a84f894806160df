// The file tools through the real MCP endpoint (src/editor-files/endpoint over Streamable HTTP on 127.0.0.1),
// called with the MCP SDK client exactly as codex calls them, on both backends:
// "client" = an editor whose buffers differ from the disk, "local" = no fs capability.
// Also: the endpoint's access rules (token per path, loopback Host only).
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createFileAccess, type SessionMode } from "../../src/editor-files/access/index.js";
import { FileToolsServer, callFileTool, type EndpointInfo } from "../../src/editor-files/endpoint/index.js";
import { DIFF_META_KEY } from "../../src/editor-files/contract/index.js";
import { BACKENDS, FakeEditor } from "./helpers.js";

const silent = pino({ level: "silent" });

type CallResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

async function connect(endpoint: EndpointInfo): Promise<Client> {
  const client = new Client({ name: "contract-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: endpoint.headers },
  });
  await client.connect(transport);
  return client;
}

describe.each(BACKENDS)("MCP file tools [%s]", (backend) => {
  const server = new FileToolsServer({ log: silent });
  let dir: string;
  let editor: FakeEditor | undefined;
  let client: Client;
  let mode: SessionMode = "auto";
  let answer = false;
  const asked: string[] = [];

  const call = async (name: string, args: Record<string, unknown>): Promise<CallResult> =>
    (await client.callTool({ name, arguments: args })) as CallResult;
  /** A file whose text, as this backend sees it, is `text` (client: the buffer; the disk differs). */
  const file = (rel: string, text: string): string => {
    const p = path.join(dir, rel);
    if (editor) {
      fs.writeFileSync(p, "DISK TEXT\n");
      editor.set(p, text);
    } else fs.writeFileSync(p, text);
    return p;
  };

  beforeAll(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `mcp-contract-${backend}-`)));
    editor = backend === "client" ? new FakeEditor() : undefined;
    const access = createFileAccess({
      ...(editor ? { editor } : {}),
      logger: silent,
      policy: {
        mode: () => mode,
        roots: () => [path.join(dir, "ws")],
        ask: async ({ changes }) => {
          asked.push(...changes.map((c) => c.path));
          return answer;
        },
      },
    });
    fs.mkdirSync(path.join(dir, "ws"));
    const endpoint = await server.register("session-key");
    server.bind("session-key", (name, args) => callFileTool(access, name, args, { cwd: dir }));
    client = await connect(endpoint);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lists both tools with the contracts' input schemas; read is read-only", async () => {
    const { tools } = await client.listTools();
    const read = tools.find((t) => t.name === "read_text_file")!;
    const write = tools.find((t) => t.name === "write_text_file")!;
    expect(read.inputSchema).toEqual({
      type: "object",
      properties: {
        path: { type: "string", description: "Absolute path of the file" },
        line: { type: "integer", minimum: 1, description: "First line to return, 1-based (default 1)" },
        limit: {
          type: "integer",
          minimum: 1,
          description: "Maximum number of lines to return (default: all remaining lines)",
        },
      },
      required: ["path"],
    });
    expect(read.annotations?.readOnlyHint).toBe(true);
    expect(write.inputSchema).toEqual({
      type: "object",
      properties: {
        path: { type: "string", description: "Absolute path of the file" },
        content: { type: "string", description: "The complete new content" },
      },
      required: ["path", "content"],
    });
    expect(write.annotations?.readOnlyHint).toBe(false);
  });

  it("R-TC1 whole file: the backend's text (client: the unsaved buffer)", async () => {
    const p = file("hello.txt", "Hello\nWorld\n");
    const r = await call("read_text_file", { path: p });
    expect(r.isError).toBeFalsy();
    const unsaved = editor ? { unsaved_changes: true } : {};
    // (The file is outside the session's root, dir/ws: the result says so.)
    expect(r.structuredContent).toEqual({
      content: "Hello\nWorld\n",
      total_lines: 2,
      returned_lines: 2,
      has_more: false,
      ...unsaved,
      outside_workspace: true,
    });
    expect(r._meta).toEqual(editor ? { unsaved_changes: true } : undefined);
    expect(r.content).toEqual([{ type: "text", text: "Hello\nWorld\n" }]);
  });

  it("R-TC2 pagination: structuredContent per contract, next-page hint in the text", async () => {
    const p = file("numbers.txt", Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join(""));
    const r = await call("read_text_file", { path: p, line: 10, limit: 5 });
    expect(r.structuredContent).toEqual({
      content: "10\n11\n12\n13\n14\n",
      total_lines: 100,
      returned_lines: 5,
      has_more: true,
      next_line: 15,
      ...(editor ? { unsaved_changes: true } : {}),
      outside_workspace: true,
    });
    expect(r.content[0]?.text).toBe("10\n11\n12\n13\n14\n\n[86 more lines: call again with line=15]");
  });

  it("null line/limit mean absent", async () => {
    const p = file("n.txt", "a\nb\n");
    const r = await call("read_text_file", { path: p, line: null, limit: null });
    expect(r.structuredContent).toMatchObject({ content: "a\nb\n", total_lines: 2 });
  });

  it("R-TC3 not found -> isError -32001", async () => {
    const p = path.join(dir, "missing.txt");
    const r = await call("read_text_file", { path: p });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({ code: -32001, message: `File not found: ${p}` });
    expect(r.content).toEqual([{ type: "text", text: `File not found: ${p}` }]);
  });

  it("R-TC4 / W-TC5 relative path -> -32600", async () => {
    const r = await call("read_text_file", { path: "relative/path.txt" });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({ code: -32600, message: "Path must be absolute: relative/path.txt" });
    const w = await call("write_text_file", { path: "relative/path.txt", content: "x" });
    expect(w.structuredContent).toEqual({ code: -32600, message: "Path must be absolute: relative/path.txt" });
  });

  it("R-TC15 invalid line / limit -> -32600 with the contract's messages", async () => {
    const p = file("v.txt", "a\n");
    expect((await call("read_text_file", { path: p, line: 0 })).structuredContent).toEqual({
      code: -32600,
      message: "Line number must be >= 1: 0",
    });
    expect((await call("read_text_file", { path: p, limit: 0 })).structuredContent).toEqual({
      code: -32600,
      message: "Limit must be >= 1: 0",
    });
    expect((await call("read_text_file", { path: p, line: 1.5 })).structuredContent).toEqual({
      code: -32600,
      message: "Line number must be an integer: 1.5",
    });
    expect((await call("read_text_file", {})).structuredContent).toEqual({
      code: -32600,
      message: "Invalid params: path must be a string",
    });
  });

  it("R-TC5 binary -> -32004", async () => {
    const p = path.join(dir, "image.png");
    fs.writeFileSync(p, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    editor?.set(p, "\x89PNG\r\n\x1a\n\0\0\0\r");
    expect((await call("read_text_file", { path: p })).structuredContent).toEqual({
      code: -32004,
      message: `Cannot read binary file: ${p}`,
    });
  });

  it("R-TC14 directory -> -32003", async () => {
    expect((await call("read_text_file", { path: dir })).structuredContent).toEqual({
      code: -32003,
      message: `${dir} is not a file`,
    });
  });

  it("W-TC1 create: result text, structuredContent, and the diff in _meta (oldText null)", async () => {
    const p = path.join(dir, "ws", "new.txt");
    const r = await call("write_text_file", { path: p, content: "Hello\n" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ success: true, bytes_written: 6, created: true });
    expect(r.content).toEqual([{ type: "text", text: `Wrote 6 bytes to ${p} (created)` }]);
    expect(r._meta?.[DIFF_META_KEY]).toEqual({ path: p, oldText: null, newText: "Hello\n" });
    if (editor) {
      expect(editor.get(p)).toBe("Hello\n");
      expect(fs.existsSync(p)).toBe(false); // the editor owns the buffer; the disk is untouched
    } else expect(fs.readFileSync(p, "utf8")).toBe("Hello\n");
  });

  it("W-TC2 overwrite: oldText is the backend's previous text (client: the buffer)", async () => {
    const p = path.join(dir, "ws", "existing.txt");
    fs.writeFileSync(p, editor ? "DISK TEXT\n" : "Old content\n");
    editor?.set(p, "Old content\n");
    const r = await call("write_text_file", { path: p, content: "New content\n" });
    expect(r.structuredContent).toEqual({ success: true, bytes_written: 12, created: false });
    expect(r.content[0]?.text).toBe(`Wrote 12 bytes to ${p} (overwritten)`);
    expect(r._meta?.[DIFF_META_KEY]).toEqual({ path: p, oldText: "Old content\n", newText: "New content\n" });
    if (editor) expect(fs.readFileSync(p, "utf8")).toBe("DISK TEXT\n");
  });

  it("W-TC6 parent missing -> -32001; W-TC7 directory -> -32003; W-TC17 missing content -> -32600", async () => {
    const missing = path.join(dir, "ws", "missing-dir", "file.txt");
    expect((await call("write_text_file", { path: missing, content: "x" })).structuredContent).toEqual({
      code: -32001,
      message: `Parent directory not found: ${path.join(dir, "ws", "missing-dir")}`,
    });
    const d = path.join(dir, "ws");
    expect((await call("write_text_file", { path: d, content: "x" })).structuredContent).toEqual({
      code: -32003,
      message: `${d} is a directory`,
    });
    expect((await call("write_text_file", { path: path.join(d, "a.txt") })).structuredContent).toEqual({
      code: -32600,
      message: "Invalid params: content must be a string",
    });
  });

  it("W-TC15 policy: read-only denies; outside the workspace asks, declined -> -32002, approved -> written", async () => {
    const inside = path.join(dir, "ws", "ro.txt");
    mode = "read-only";
    try {
      const r = await call("write_text_file", { path: inside, content: "x" });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toEqual({
        code: -32002,
        message: `Permission denied: ${inside} (session mode is read-only)`,
      });
      expect(fs.existsSync(inside)).toBe(false);
    } finally {
      mode = "auto";
    }
    const outside = path.join(dir, "outside.txt");
    asked.length = 0;
    answer = false;
    const declined = await call("write_text_file", { path: outside, content: "x" });
    expect(asked).toEqual([outside]);
    expect(declined.structuredContent).toEqual({
      code: -32002,
      message: `Permission denied: ${outside} (outside the workspace; not approved)`,
    });
    expect(editor ? editor.get(outside) : fs.existsSync(outside) || undefined).toBeUndefined();
    answer = true;
    const approved = await call("write_text_file", { path: outside, content: "x\n" });
    expect(approved.structuredContent).toEqual({ success: true, bytes_written: 2, created: true });
    // reads never ask
    asked.length = 0;
    await call("read_text_file", { path: path.join(dir, "hello.txt") });
    expect(asked).toEqual([]);
  });

  it("unknown tool -> isError", async () => {
    const r = await call("delete_everything", {});
    expect(r.isError).toBe(true);
  });

  it("apply_patch: listed with its schema; result, summary text and one diff per file in _meta; errors are isError", async () => {
    const { tools } = await client.listTools();
    const patch = tools.find((t) => t.name === "apply_patch")!;
    expect(patch.inputSchema).toEqual({
      type: "object",
      properties: {
        input: { type: "string", description: "The entire patch, from `*** Begin Patch` to `*** End Patch`" },
      },
      required: ["input"],
    });
    expect(patch.description).toContain("*** Begin Patch");
    mode = "auto";
    const f = file("ws/patched.txt", "one\ntwo\n");
    const input = [
      "*** Begin Patch",
      "*** Update File: ws/patched.txt",
      "@@",
      " one",
      "-two",
      "+2",
      "*** Add File: ws/added.txt",
      "+new",
      "*** End Patch",
    ].join("\n");
    const r = await call("apply_patch", { input });
    const added = path.join(dir, "ws", "added.txt");
    expect(r.isError).toBeUndefined();
    expect(r.content).toEqual([{ type: "text", text: `Success. Updated the following files:\nM ${f}\nA ${added}` }]);
    expect(r.structuredContent).toEqual({
      success: true,
      files: [
        { path: f, action: "update" },
        { path: added, action: "add" },
      ],
    });
    expect(r._meta?.[DIFF_META_KEY]).toEqual([
      { path: f, oldText: "one\ntwo\n", newText: "one\n2\n" },
      { path: added, oldText: null, newText: "new\n" },
    ]);
    const bad = await call("apply_patch", { input: input.replace("-two", "-three") });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ code: -32006 });
  });
});

describe("an endpoint that lists only some tools", () => {
  it("does not list apply_patch and refuses to run it", async () => {
    const server = new FileToolsServer({ log: silent });
    const endpoint = await server.register("no-patch", { tools: ["read_text_file", "write_text_file"] });
    let ran = 0;
    server.bind("no-patch", async () => {
      ran++;
      return { content: [{ type: "text", text: "ran" }] };
    });
    const client = await connect(endpoint);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["read_text_file", "write_text_file"]);
      const r = (await client.callTool({ name: "apply_patch", arguments: { input: "x" } })) as CallResult;
      expect(r).toMatchObject({
        isError: true,
        structuredContent: { code: -32601, message: "Unknown tool: apply_patch" },
      });
      expect(ran).toBe(0);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("MCP endpoint access", () => {
  const server = new FileToolsServer({ log: silent });
  let a: EndpointInfo;
  let b: EndpointInfo;
  let port: number;

  beforeAll(async () => {
    a = await server.register("a");
    b = await server.register("b");
    const access = createFileAccess({ logger: silent });
    server.bind("a", (n, args) => callFileTool(access, n, args, { cwd: os.tmpdir() }));
    server.bind("b", (n, args) => callFileTool(access, n, args, { cwd: os.tmpdir() }));
    port = new URL(a.url).port ? Number(new URL(a.url).port) : 80;
  });
  afterAll(() => server.close());

  const initBody = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  function post(url: string, headers: Record<string, string>): Promise<number> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: u.port,
          path: u.pathname,
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(initBody);
    });
  }

  it("each session gets its own loopback URL path and token", () => {
    expect(new URL(a.url).hostname).toBe("127.0.0.1");
    expect(new URL(a.url).pathname).not.toBe(new URL(b.url).pathname);
    expect(a.token).not.toBe(b.token);
    expect(a.token.length).toBeGreaterThanOrEqual(32);
    expect(a.headers).toEqual({ Authorization: `Bearer ${a.token}` });
  });

  it("accepts the path's own token", async () => {
    expect(await post(a.url, a.headers)).toBe(200);
  });

  it("refuses a missing or wrong token with 401", async () => {
    expect(await post(a.url, {})).toBe(401);
    expect(await post(a.url, { Authorization: "Bearer wrong" })).toBe(401);
    expect(await post(a.url, { Authorization: `Basic ${a.token}` })).toBe(401);
  });

  it("refuses another session's token with 401", async () => {
    expect(await post(a.url, b.headers)).toBe(401);
    expect(await post(b.url, a.headers)).toBe(401);
  });

  it("refuses a non-loopback Host header with 403 (DNS rebinding)", async () => {
    expect(await post(a.url, { ...a.headers, Host: `evil.example:${port}` })).toBe(403);
    expect(await post(a.url, { ...a.headers, Host: "127.0.0.1:1" })).toBe(403);
    expect(await post(a.url, { ...a.headers, Host: `localhost:${port}` })).toBe(200);
  });

  it("an unregistered session's endpoint is gone (404)", async () => {
    const c = await server.register("c");
    server.unregister("c");
    expect(await post(c.url, c.headers)).toBe(404);
  });

  it("the MCP SDK client is refused with the wrong token", async () => {
    await expect(connect({ ...a, headers: { Authorization: "Bearer nope" } })).rejects.toThrow();
  });
});
