// Public surface of src/editor-files/endpoint: the embedded MCP server hosting the file tools
// (contracts/read_text_file.md, write_text_file.md, apply_patch.md), MCP spoken by
// endpoint-protocol.ts.
export { FileToolsServer, type EndpointInfo, type FileToolsServerOptions, type HookHandler } from "./server.js";
export {
  callFileTool,
  errorToolResult,
  patchToolResult,
  readToolResult,
  writeToolResult,
  toolDefinitions,
  TOOL_DEFINITIONS,
  type ToolCallContext,
  type ToolDefinition,
  type ToolResult,
} from "./tools.js";
export type { ToolCaller } from "./endpoint-protocol.js";
