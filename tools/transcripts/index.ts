// Public surface of the transcript recorder / replayer (contract test runner).
// Only the CLI entry and types load eagerly; the heavy parts (ajv, child processes) load on use.
export { listTranscripts, runTranscriptCli, TRANSCRIPT_USAGE } from "./cli.js";
export type { RecorderOptions } from "./record.js";
export type { Mismatch, MismatchKind, ReplayOptions, ReplayResult, StartAgentSpec } from "./replay/index.js";
export { parseTranscript, TranscriptFormatError } from "./format.js";
export type { Direction, Transcript, TranscriptEntry, TranscriptHeader } from "./format.js";

export async function runRecorder(options: import("./record.js").RecorderOptions): Promise<number> {
  return (await import("./record.js")).runRecorder(options);
}

export async function replayTranscript(
  file: string,
  options?: import("./replay/index.js").ReplayOptions,
): Promise<import("./replay/index.js").ReplayResult> {
  return (await import("./replay/index.js")).replayTranscript(file, options);
}
