// Public surface of src/fs: file access for the MCP tools, editor first, node:fs as fallback.
// Contracts: contracts/read_text_file.md, contracts/write_text_file.md.
export {
  createFileAccess,
  createLocalFiles,
  LARGE_FILE_BYTES,
  type EditorFiles,
  type FileAccess,
  type ReadResult,
  type ServedBy,
  type WritePolicy,
  type WriteResult,
} from "./access.js";
export { ErrorCode, FileToolError } from "./errors.js";
export { canonicalPath, decideWrite, type SessionMode, type WriteDecision } from "./policy.js";
export { validateReadParams, validateWriteParams, type ReadParams, type WriteParams } from "./validate.js";
