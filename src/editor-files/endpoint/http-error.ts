import type { ServerResponse } from "node:http";
import { McpHttpCode } from "../../json-rpc/index.js";

/** An HTTP error carrying a JSON-RPC error body (id null), as MCP clients expect. */
export function writeHttpError(
  res: ServerResponse,
  status: number,
  message: string,
  code: number = McpHttpCode.ServerError,
): void {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
