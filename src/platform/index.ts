// Public surface of src/platform: what differs between Linux, macOS and Windows, each decision
// taking the platform as a parameter (default: this host) so every branch runs in tests anywhere.
export { isInsidePath, isWindowsDevicePath, normalizedDirectory, pathsOf, type Platform } from "./paths.js";
export { processActivity, type ProcessActivity, type ProcFileReader } from "./process-activity.js";
export { processStopper, type ProcessStopper, type StoppableProcess, type TaskkillRunner } from "./processes.js";
export { batchFileLaunch, isBatchFile, quoteWindowsArgument, type Launch } from "./windows-command.js";
