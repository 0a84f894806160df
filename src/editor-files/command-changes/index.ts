// Public surface of src/editor-files/command-changes: what a shell command changed, found around it.
// The hooks' commands (hooks.ts) are the shell-patch guard's to install, beside its own.
export { CommandChanges } from "./tracker.js";
export { modelNote, reportContent } from "./report.js";
export { commandPaths } from "./candidates.js";
export { fileState } from "./snapshot.js";
export { afterCommand } from "./hooks.js";
export { FolderWatch } from "./watch.js";
