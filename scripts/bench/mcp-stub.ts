// A loopback MCP server that answers at once, for the bench's "plain codex with one HTTP MCP
// server" side: what codex itself spends on a thread's MCP server before its first turn (it
// connects the thread's servers, and a turn starts once they are ready), with nothing of ours in
// the way. The floor for a first prompt sent the instant a session opens, for any adapter whose
// file tools are an MCP server, as ours are. Streamable HTTP with JSON answers; one read-only tool.
import { createServer, type Server } from "node:http";

export type McpStub = { url: string; close(): Promise<void> };

const TOOL = {
  name: "read_text_file",
  description: "Reads a file.",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  annotations: { readOnlyHint: true },
};

function answerOf(method: string, params: { protocolVersion?: string } | undefined): unknown {
  if (method === "initialize")
    return {
      protocolVersion: params?.protocolVersion ?? "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "bench-stub", version: "1" },
    };
  if (method === "tools/list") return { tools: [TOOL] };
  return {};
}

export async function startMcpStub(): Promise<McpStub> {
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      // No server-initiated stream (GET) and nothing to close (DELETE): only POSTed messages.
      if (req.method !== "POST") return void res.writeHead(405).end();
      const msg = JSON.parse(Buffer.concat(parts).toString("utf8")) as {
        id?: number | string;
        method: string;
        params?: { protocolVersion?: string };
      };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const headers = {
        "content-type": "application/json",
        ...(msg.method === "initialize" ? { "mcp-session-id": "bench" } : {}),
      };
      res
        .writeHead(200, headers)
        .end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: answerOf(msg.method, msg.params) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
