// Public surface of src/mcp: the embedded MCP server hosting the file tools
// (contracts/read_text_file.md, write_text_file.md, apply_patch.md). Importing this module does
// not load the MCP SDK; the server loads it in the background once it starts listening.
export { FileToolsServer, type EndpointInfo, type FileToolsServerOptions } from "./server.js";
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
export type { ToolCaller } from "./sdk-endpoint.js";
