// Public surface of src/editor-files/patch: Codex's patch grammar, parsed and applied to text. Pure (no I/O);
// src/editor-files/access applies patches to files through the editor or the disk, src/bridge describes them.
export { parsePatch, patchPaths, PatchSyntaxError, type PatchHunk, type PatchOperation } from "./parse.js";
export { applyHunks, PatchConflictError } from "./apply.js";
export { describePatch, type PatchKind, type PatchSummary } from "./describe.js";
