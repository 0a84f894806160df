// `codex-cli-acp --help`: usage, every environment variable (config/index.ts), and a Zed entry
// that works for this installation today (its absolute paths), the npx one for after publication.
import { ENVIRONMENT, VERSION } from "./config/index.js";

/** Wraps `text` to `width` columns, continuation lines indented by `indent`. */
function wrap(text: string, indent: number, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}

/** The help text; `node` and `bin` are the absolute paths of this Node and this bin. */
export function helpText(node: string, bin: string): string {
  const width = 100;
  const column = Math.max(...ENVIRONMENT.map(([name]) => name.length)) + 4;
  const environment = ENVIRONMENT.map(
    ([name, text]) => `  ${name.padEnd(column - 2)}${wrap(text, column, width)}`,
  ).join("\n");
  const zed = {
    agent_servers: {
      "Codex CLI": { type: "custom", command: node, args: [bin], env: {}, default_config_options: { mode: "auto" } },
    },
  };
  return `codex-cli-acp ${VERSION}
Runs the OpenAI Codex CLI as an Agent Client Protocol (ACP) agent over stdio.

Usage:
  codex-cli-acp
      Serve ACP on stdin/stdout (what an editor starts).
  codex-cli-acp record --out FILE [--fake-model SCRIPT.json] [--keep-secrets] -- <agent command...>
      Proxy an ACP agent and record the session as JSONL (mode 0600); credentials and file
      contents are replaced by markers unless --keep-secrets.
  codex-cli-acp replay --trust [--update] [--timeout S] [--stop-after-eof S] FILE...
                       [--agent -- <command...>]
      Replay recorded transcripts against the agent they name (or --agent's, given last).
      A replay does what the file says: --trust says you trust it (without, it says what).
  codex-cli-acp login [--device-auth | --with-api-key | --with-access-token | status]
      Sign in with the Codex bundled with this agent (the editor's "Sign in in a terminal").
  codex-cli-acp record|replay|login --help
      That command's own usage.
  codex-cli-acp --help | --version

Environment:
${environment}

Zed (settings.json), this installation as it is now:
${JSON.stringify(zed, null, 2).split("\n").slice(1, -1).join("\n")}
  default_config_options sets a session's options from the start: "mode" (read-only,
  review-edits, auto, auto-review, full-access), "model", "reasoning_effort",
  "collaboration_mode" (plan, default).
  Once published on npm: "command": "npx", "args": ["-y", "codex-cli-acp"].

Logs go to stderr (or CODEX_ACP_LOG_FILE), never stdout; in Zed: "dev: open acp logs".
`;
}
