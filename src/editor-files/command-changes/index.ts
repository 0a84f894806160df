// Public surface of src/editor-files/command-changes: what a shell command changed, found around it.
export { CommandChanges, type CommandReport } from "./tracker.js";
export { modelNote, reportContent, unsavedWarning } from "./report.js";
export { commandPaths } from "./candidates.js";
export { changeOf, fileState, type Change, type FileState } from "./snapshot.js";
export { afterCommand, hookTrustHash, reportCommand, type HookAddress } from "./hooks.js";
export { FolderWatch, MAX_FOLDERS } from "./watch.js";
