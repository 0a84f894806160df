// What replaying a transcript would do because the file says so. Transcripts are made to be
// shared, and a replay starts the agent command in the header, sets the environment it names,
// seeds the workspace it starts the agent in, stands up the fake model it scripts (whose tool
// calls the agent carries out, with Codex configured by the header's extra lines), and sends the
// agent every recorded client message: prompts, permission answers, MCP servers for it to start.
// An agent of the reader's own (`--agent`) still gets all but the command. So a file is data until
// its reader says otherwise: `replay --trust`, for every transcript.
import type { Transcript } from "./format.js";

/** A string as the terminal should show it: as is when plain, else as JSON (no control character of the file's reaches the terminal). */
export function shown(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : JSON.stringify(text);
}

/** What replaying `transcript` would do, as phrases for "replaying it would ..." (the agent command left out when the reader gives one). */
export function whatReplayDoes(transcript: Transcript, agentGiven: boolean): string[] {
  const { header } = transcript;
  const does: string[] = [];
  // As JSON: the command exactly, arguments apart.
  if (!agentGiven) does.push(`run the agent command ${JSON.stringify(header.agent.command)}`);
  const env = Object.keys(header.env ?? {}).map(shown);
  if (env.length > 0) does.push(`set the agent's environment (${env.join(", ")})`);
  const files = Object.keys(header.workspace?.files ?? {}).length;
  if (files > 0)
    does.push(
      `write ${files} file(s) into the workspace${header.agent.cwd === "<CWD>" ? " and start the agent there" : ""}`,
    );
  const folders = header.workspace?.directories?.length ?? 0;
  if (folders > 0) does.push(`create ${folders} folder(s) the recorded session names`);
  if (header.fakeModel) {
    does.push(
      `give the agent a scripted model (fakeModel, ${header.fakeModel.responses.length} responses), whose tool calls the agent carries out`,
    );
    const extra = (header.fakeModel as { extraConfig?: unknown }).extraConfig;
    if (typeof extra === "string" && extra.trim() !== "")
      does.push("add to Codex's configuration (fakeModel.extraConfig)");
  }
  const sent = transcript.entries.filter((e) => e.type === "message" && e.dir === "client->agent");
  const servers = sent.flatMap((e) => (e.type === "message" ? mcpCommands(e.msg.params) : []));
  if (servers.length > 0)
    does.push(
      `have the agent start the MCP servers its messages name (${servers.map((c) => JSON.stringify(c)).join(", ")})`,
    );
  does.push(
    `send the agent ${sent.length} recorded client message(s) as they are (prompts, permission answers, session changes)`,
  );
  return does;
}

/** The commands of the stdio MCP servers a client message gives the agent (session/new, load, resume, fork). */
function mcpCommands(params: unknown): string[][] {
  const servers =
    params !== null && typeof params === "object" ? (params as { mcpServers?: unknown }).mcpServers : undefined;
  if (!Array.isArray(servers)) return [];
  return servers.flatMap((s: unknown) => {
    const { command, args } = (s ?? {}) as { command?: unknown; args?: unknown };
    return typeof command === "string" ? [[command, ...(Array.isArray(args) ? args.map(String) : [])]] : [];
  });
}

/** Why `file` was not replayed, and how to go on. */
export function notTrustedMessage(file: string, does: readonly string[]): string {
  return (
    `${shown(file)} was not replayed: replaying it would ${does.join("; ")}. ` +
    "Replay it with --trust once you trust the file (you recorded it, or read what it does); " +
    "--agent -- <command> replays it against an agent of your own, with --trust too."
  );
}
