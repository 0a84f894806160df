// A replay Matcher over a transcript's text, with nothing live behind it (unit tests of the
// transcript runner): what it reports as failures and what it would send the agent are collected.
import { parseTranscript, type Transcript } from "../../tools/transcripts/format.js";
import { Matcher } from "../../tools/transcripts/replay/matcher.js";
import { RecordingIndex } from "../../tools/transcripts/replay/recording.js";
import type { Mismatch } from "../../tools/transcripts/replay/types.js";
import { loadAcpValidators } from "../../tools/transcripts/schema.js";

export type MatcherUnderTest = {
  matcher: Matcher;
  transcript: Transcript;
  failures: Mismatch[];
  sent: Array<Record<string, unknown>>;
};

export async function matcherOver(text: string, name: string): Promise<MatcherUnderTest> {
  const transcript = parseTranscript(text, name);
  const failures: Mismatch[] = [];
  const sent: Array<Record<string, unknown>> = [];
  const matcher = new Matcher({
    recording: new RecordingIndex(transcript),
    validators: await loadAcpValidators(),
    recordedPlaceholders: {},
    livePlaceholders: {},
    fail: (m) => failures.push(m),
    send: (m) => sent.push(m),
    aborted: () => false,
  });
  return { matcher, transcript, failures, sent };
}
