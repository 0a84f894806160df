// Public surface of src/editor-files/access: file access for the MCP tools, editor first (and final), node:fs
// without the editor's capability. Contracts: contracts/read_text_file.md,
// contracts/write_text_file.md, contracts/apply_patch.md.
export {
  createFileAccess,
  createLocalFiles,
  LARGE_FILE_BYTES,
  type CallOptions,
  type EditorFiles,
  type FileAccess,
  type FileChange,
  type ReadResult,
  type ServedBy,
  type WritePolicy,
  type WriteResult,
} from "./access.js";
export { MAX_PATCH_FILE_BYTES, type PatchedFile, type PatchParams, type PatchResult } from "./patch-files.js";
export { ErrorCode, FileToolError } from "./errors.js";
export { askReason, canonicalPath, decideWrite, isSystemPath, type SessionMode, type WriteDecision } from "./policy.js";
export { describeDrift, type EditDrift } from "./ledger.js";
export { validateReadParams, validateWriteParams, type ReadParams, type WriteParams } from "./validate.js";
