// JSON-RPC's shared names: the error codes (error-codes.ts).
export { AcpCode, JsonRpcCode, McpHttpCode } from "./error-codes.js";
