// The JSON-RPC error codes the agent sends and reads, named in one place: JSON-RPC 2.0's own,
// ACP's, and those of MCP's Streamable HTTP transport (the editor-files endpoint). A shared
// library: the core, the features, Codex's client and the tools import it; it imports nothing.
// (The file tools' own codes are their contract's: src/editor-files/access/errors.ts.)

/** JSON-RPC 2.0's own codes. */
export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** ACP's codes beyond JSON-RPC's. */
export const AcpCode = {
  /** The client must sign in first. */
  AuthRequired: -32000,
  /** A resource (a session) that is not there. */
  ResourceNotFound: -32002,
} as const;

/** MCP's Streamable HTTP transport's codes (as the MCP SDK's server answers). */
export const McpHttpCode = {
  /** A request the server refuses (a header, a method or a session it will not serve). */
  ServerError: -32000,
  /** A session id the server does not know (ended, or never made). */
  SessionNotFound: -32001,
} as const;
