// Public surface of src/mcp: the embedded MCP server hosting the file tools
// (contracts/read_text_file.md, contracts/write_text_file.md). Importing this module does not
// load the MCP SDK; the server loads it in the background once it starts listening.
export { FileToolsServer, type EndpointInfo, type FileToolsServerOptions } from "./server.js";
export {
  callFileTool,
  errorToolResult,
  readToolResult,
  writeToolResult,
  DIFF_META_KEY,
  READ_TOOL,
  WRITE_TOOL,
  TOOL_DEFINITIONS,
  type DiffMeta,
  type ToolResult,
} from "./tools.js";
export type { ToolCaller } from "./protocol.js";
