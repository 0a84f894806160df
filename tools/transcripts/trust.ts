// What replaying a transcript would run because the file says so. Transcripts are made to be
// shared, and a replay starts the agent command in the header, sets the environment it names, and
// stands up the fake model it scripts (whose tool calls the agent carries out, with Codex
// configured by the header's extra lines): a file from elsewhere is data until its reader says
// otherwise (`replay --trust`). `--agent` replaces the command only.
import type { TranscriptHeader } from "./format.js";

/** What `header` would make a replay run, as phrases for "it would ..."; empty when nothing. */
export function runsFromTranscript(header: TranscriptHeader, agentGiven: boolean): string[] {
  const runs: string[] = [];
  // As JSON: what the reader decides on is shown exactly, arguments apart and no control character
  // of the file's reaching the terminal.
  if (!agentGiven) runs.push(`run the agent command ${JSON.stringify(header.agent.command)}`);
  const env = Object.keys(header.env ?? {}).map((name) => (/^[\x21-\x7e]+$/.test(name) ? name : JSON.stringify(name)));
  if (env.length > 0) runs.push(`set the agent's environment (${env.join(", ")})`);
  if (header.fakeModel) {
    runs.push(`give the agent a scripted model (fakeModel, ${header.fakeModel.responses.length} responses), whose tool calls the agent carries out`);
    const extra = (header.fakeModel as { extraConfig?: unknown }).extraConfig;
    if (typeof extra === "string" && extra.trim() !== "") runs.push("add to Codex's configuration (fakeModel.extraConfig)");
  }
  return runs;
}

/** Why `file` was not replayed, and how to go on. */
export function notTrustedMessage(file: string, runs: readonly string[]): string {
  return (
    `${file} was not replayed: it would ${runs.join("; ")}. ` +
    "Replay it with --trust if you trust the file (you recorded it, or read what it runs), " +
    "or against an agent of your own with --agent -- <command> (the file's environment and scripted model still need --trust)."
  );
}
