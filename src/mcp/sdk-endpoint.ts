// The MCP protocol side of one endpoint (loaded lazily: the SDK costs ~100 ms to import).
// Stateful Streamable HTTP: each MCP client session (codex connects once per thread, again
// after a restart) gets its own SDK Server + transport; all of them serve the same ACP session.
// The low-level Server is used rather than McpServer so the tools' input schemas are exactly
// the contracts' JSON Schemas and validation errors are the contracts' tool results.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../log/index.js";
import { writeHttpError } from "./http-error.js";
import type { ToolDefinition, ToolResult } from "./tools.js";

export type ToolCaller = (name: string, args: unknown) => Promise<ToolResult>;

export type EndpointProtocol = {
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
};

export function createEndpointProtocol(opts: { name: string; version: string; tools: readonly ToolDefinition[]; call: ToolCaller; log: Logger }): EndpointProtocol {
  const transports = new Map<string, StreamableHTTPServerTransport>();

  function newServer(): Server {
    const server = new Server({ name: opts.name, version: opts.version }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...opts.tools] }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const { name, arguments: args } = request.params;
      opts.log.debug({ tool: name }, "mcp tools/call");
      return (await opts.call(name, args ?? {})) as never;
    });
    return server;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const sessionHeader = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const transport = transports.get(sessionId);
      if (!transport) return writeHttpError(res, 404, "Session not found", -32001);
      return transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return writeHttpError(res, 400, "Bad Request: no valid session id");
    }
    // One endpoint serves one ACP session, and Codex connects once per thread: a new
    // initialize means an earlier connection (e.g. of a Codex child that died) is stale.
    const stale = [...transports.values()];
    transports.clear();
    for (const t of stale) void t.close().catch(() => undefined);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
      onsessionclosed: (id) => {
        transports.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function close(): Promise<void> {
    const all = [...transports.values()];
    transports.clear();
    await Promise.allSettled(all.map((t) => t.close()));
  }

  return { handle, close };
}
