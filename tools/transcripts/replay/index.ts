// `replay`: plays the client side of a recorded ACP session against a live agent and compares
// every agent message with the recording (rules: contracts/transcript-format.md). By job:
// recording.ts (the recording, indexed), sandbox.ts (workspace, fake model, CODEX_HOME),
// run.ts (the agent process and the pacing of client messages), matcher.ts (live vs recorded),
// report.ts (what a person reads).
import { parseTranscript, readTranscriptText, type Transcript } from "../format.js";
import { ReplayRun } from "./run.js";
import type { ReplayOptions, ReplayResult } from "./types.js";

export { formatReplayReport } from "./report.js";
export type { Mismatch, MismatchKind, ReplayOptions, ReplayResult, StartAgentSpec } from "./types.js";

/** Replays one transcript file. Throws TranscriptFormatError for a malformed file. */
export async function replayTranscript(file: string, opts: ReplayOptions = {}): Promise<ReplayResult> {
  const text = await readTranscriptText(file);
  return replayParsed(parseTranscript(text, file), opts);
}

/** Replays a transcript already read (its header looked at first: the CLI's --trust). */
export function replayParsed(transcript: Transcript, opts: ReplayOptions = {}): Promise<ReplayResult> {
  return new ReplayRun(transcript, opts).execute();
}
