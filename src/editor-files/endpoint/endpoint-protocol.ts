// The MCP protocol side of one endpoint: Streamable HTTP with JSON responses (no server-initiated
// stream: the file tools never call the client), for the five messages a tool-only server needs
// (initialize, notifications/initialized, ping, tools/list, tools/call).
//
// Written here rather than with the MCP SDK's Server + StreamableHTTPServerTransport: importing
// the SDK blocked the event loop for ~33 ms and added ~6 MiB (measured: scripts/bench and an
// import timing), and that import landed on the critical path of the first session/new or the
// first prompt, whichever met Codex's MCP handshake. The SDK's client still checks this server in
// tests/contract (mcp-tools, mcp-endpoint-attacks); tests/contract/mcp-protocol.test.ts checks the wire.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { Logger } from "../../log/index.js";
import { markPhase } from "../../log/index.js";
import { writeHttpError } from "./http-error.js";
import type { ToolDefinition, ToolResult } from "./tools.js";
import { JsonRpcCode, McpHttpCode } from "../../json-rpc/index.js";

/**
 * Runs one tool call. `signal` fires when the call is given up on: Codex dropped the HTTP request
 * (its deadline) or sent `notifications/cancelled` for it, or the endpoint closed.
 */
export type ToolCaller = (name: string, args: unknown, signal: AbortSignal) => Promise<ToolResult>;

export type EndpointProtocol = {
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): void;
};

/**
 * Newest first: an initialize asking for another version gets the first. Only versions without
 * JSON-RPC batches (2025-06-18 removed them), as this server answers one message per POST; the
 * codex 0.169 binary names only these two.
 */
const MCP_PROTOCOL_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18"];

/** MCP sessions kept per endpoint (Codex connects once per thread, again after a restart). */
const MAX_SESSIONS = 32;

const idSchema = z.union([z.string(), z.number()]);
const requestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: idSchema,
  method: z.string(),
  params: z.unknown().optional(),
});
const notificationSchema = z.object({ jsonrpc: z.literal("2.0"), method: z.string(), params: z.unknown().optional() });
const responseSchema = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id: idSchema.nullable(), result: z.unknown() }),
  z.object({
    jsonrpc: z.literal("2.0"),
    id: idSchema.nullable(),
    error: z.looseObject({ code: z.number(), message: z.string() }),
  }),
]);
const initializeParamsSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.looseObject({}),
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }),
});
const callToolParamsSchema = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
const cancelledParamsSchema = z.looseObject({ requestId: idSchema, reason: z.string().optional() });

type Request = z.infer<typeof requestSchema>;
type RpcError = { code: number; message: string };

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export function createEndpointProtocol(opts: {
  name: string;
  version: string;
  tools: readonly ToolDefinition[];
  call: ToolCaller;
  log: Logger;
}): EndpointProtocol {
  /** Open MCP sessions (one endpoint serves one ACP session; codex connects once per thread). */
  const sessions = new Set<string>();
  /** Tool calls running, by MCP session and request id, so `notifications/cancelled` can give one up. */
  const running = new Map<string, AbortController>();
  const runningKey = (session: string | undefined, id: string | number): string =>
    `${session ?? ""}\u0000${typeof id}:${String(id)}`;

  async function dispatch(request: Request, session: string | undefined, signal: AbortSignal): Promise<unknown> {
    switch (request.method) {
      case "initialize": {
        const params = initializeParamsSchema.safeParse(request.params);
        if (!params.success)
          throw new RpcFailure(
            JsonRpcCode.InvalidParams,
            `Invalid initialize params: ${params.error.issues[0]?.message ?? "invalid"}`,
          );
        const asked = params.data.protocolVersion;
        markPhase(opts.log, "file tools: codex's MCP initialize answered");
        return {
          protocolVersion: MCP_PROTOCOL_VERSIONS.includes(asked) ? asked : MCP_PROTOCOL_VERSIONS[0],
          capabilities: { tools: {} },
          serverInfo: { name: opts.name, version: opts.version },
        };
      }
      case "ping":
        return {};
      case "tools/list":
        markPhase(opts.log, "file tools: tools/list answered");
        return { tools: [...opts.tools] };
      case "tools/call": {
        const params = callToolParamsSchema.safeParse(request.params);
        if (!params.success)
          throw new RpcFailure(
            JsonRpcCode.InvalidParams,
            `Invalid tools/call params: ${params.error.issues[0]?.message ?? "invalid"}`,
          );
        opts.log.debug({ tool: params.data.name, mcpSession: session }, "mcp tools/call");
        return opts.call(params.data.name, params.data.arguments ?? {}, signal);
      }
      default:
        throw new RpcFailure(JsonRpcCode.MethodNotFound, `Method not found: ${request.method}`);
    }
  }

  async function answer(
    res: ServerResponse,
    request: Request,
    session: string | undefined,
    headers: Record<string, string> = {},
  ): Promise<void> {
    let reply: { result: unknown } | { error: RpcError };
    // A client that stops waiting (codex's tool deadline drops the request) gives the call up.
    const controller = new AbortController();
    const key = runningKey(session, request.id);
    const dropped = (): void => {
      if (!res.writableFinished) controller.abort(new Error("the MCP client closed the request"));
    };
    res.once("close", dropped);
    running.set(key, controller);
    try {
      reply = { result: await dispatch(request, session, controller.signal) };
    } catch (err) {
      const code = err instanceof RpcFailure ? err.code : JsonRpcCode.InternalError;
      reply = { error: { code, message: err instanceof Error ? err.message : String(err) } };
    } finally {
      res.off("close", dropped);
      if (running.get(key) === controller) running.delete(key);
    }
    if ("error" in reply) delete headers["mcp-session-id"];
    else if (headers["mcp-session-id"]) {
      // Earlier sessions stay valid: nothing says one MCP client per endpoint (codex 0.169
      // connects once per thread, and a parent with a subagent was seen using one connection).
      // A session is only an id here; the oldest go past MAX_SESSIONS (a restarted codex's).
      sessions.add(headers["mcp-session-id"]);
      opts.log.debug({ mcpSessions: sessions.size }, "mcp session opened");
      for (const old of sessions) {
        if (sessions.size <= MAX_SESSIONS) break;
        sessions.delete(old);
      }
    }
    // The client may be gone by now (codex killed mid-call): nothing to answer.
    if (res.destroyed) return;
    res
      .writeHead(200, { "content-type": "application/json", ...headers })
      .end(JSON.stringify({ jsonrpc: "2.0", id: request.id, ...reply }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const header = req.headers["mcp-session-id"];
    const session = Array.isArray(header) ? header[0] : header;
    if (req.method === "GET") {
      res.setHeader("Allow", "POST, DELETE");
      return writeHttpError(res, 405, "Method not allowed: this server sends no server-initiated messages");
    }
    if (req.method === "DELETE") {
      if (session === undefined) return writeHttpError(res, 400, "Bad Request: no session id");
      if (!sessions.delete(session)) return writeHttpError(res, 404, "Session not found", McpHttpCode.SessionNotFound);
      res.writeHead(200).end();
      return;
    }
    if (Array.isArray(body))
      return writeHttpError(res, 400, "Invalid Request: batches are not supported", JsonRpcCode.InvalidRequest);
    const request = requestSchema.safeParse(body);
    if (request.success && request.data.method === "initialize") {
      return answer(res, request.data, undefined, { "mcp-session-id": randomUUID() });
    }
    if (session === undefined) return writeHttpError(res, 400, "Bad Request: no valid session id");
    if (!sessions.has(session)) return writeHttpError(res, 404, "Session not found", McpHttpCode.SessionNotFound);
    const version = req.headers["mcp-protocol-version"];
    if (typeof version === "string" && !MCP_PROTOCOL_VERSIONS.includes(version)) {
      return writeHttpError(res, 400, `Bad Request: unsupported protocol version ${version}`);
    }
    if (request.success) return answer(res, request.data, session);
    // A message with an id that is no request (an id of the wrong type) is not a notification either.
    const hasId = typeof body === "object" && body !== null && "id" in body;
    const notification = hasId ? undefined : notificationSchema.safeParse(body);
    if (notification?.success || responseSchema.safeParse(body).success) {
      if (notification?.success && notification.data.method === "notifications/cancelled")
        cancelRunning(session, notification.data.params);
      res.writeHead(202).end();
      return;
    }
    return writeHttpError(res, 400, "Invalid Request: not a JSON-RPC 2.0 message", JsonRpcCode.InvalidRequest);
  }

  /** `notifications/cancelled` for a running call of this MCP session: it is given up. */
  function cancelRunning(session: string, params: unknown): void {
    const parsed = cancelledParamsSchema.safeParse(params);
    if (!parsed.success) return;
    const controller = running.get(runningKey(session, parsed.data.requestId));
    if (!controller) return;
    opts.log.debug({ requestId: parsed.data.requestId }, "mcp client cancelled a tool call");
    controller.abort(new Error(`cancelled by the MCP client${parsed.data.reason ? `: ${parsed.data.reason}` : ""}`));
  }

  return {
    handle,
    close: () => {
      sessions.clear();
      for (const controller of running.values()) controller.abort(new Error("the endpoint closed"));
      running.clear();
    },
  };
}
