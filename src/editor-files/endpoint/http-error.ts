import type { ServerResponse } from "node:http";

/** An HTTP error carrying a JSON-RPC error body (id null), as MCP clients expect. */
export function writeHttpError(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
