// codex-cli-acp: the bin. In serve mode (no arguments) stdout carries ACP only.
// Start-up order matters: codex is spawned first, then the ACP side is loaded,
// so the two overlap (scripts/bench measures spawn -> initialize).
import { ENVIRONMENT, VERSION, readConfig } from "./config/index.js";

const HELP = `codex-cli-acp ${VERSION}
Runs the OpenAI Codex CLI as an Agent Client Protocol (ACP) agent over stdio.

Usage:
  codex-cli-acp                     serve ACP on stdin/stdout (what an editor starts)
  codex-cli-acp record --out FILE -- <agent command...>
                                    proxy an ACP agent and record the session as JSONL
  codex-cli-acp replay [--update] [--agent -- <cmd...>] FILE...
                                    replay recorded transcripts against an agent
  codex-cli-acp login [--device-auth | --with-api-key]
                                    sign in with the Codex bundled with this agent
                                    (what the editor's "Sign in in a terminal" runs)
  codex-cli-acp --help | --version

Environment:
${ENVIRONMENT.map(([name, text]) => `  ${name.padEnd(32)}${text}`).join("\n")}

Zed (settings.json):
  "agent_servers": {
    "Codex CLI": {
      "type": "custom",
      "command": "npx",
      "args": ["-y", "codex-cli-acp"],
      "env": {}
    }
  }

Logs go to stderr (or CODEX_ACP_LOG_FILE), never stdout.
`;

async function main(argv: string[]): Promise<number | undefined> {
  const [first] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (first === "--version" || first === "-v") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === "record" || first === "replay") {
    const { runTranscriptCli } = await import("./transcripts/index.js");
    return runTranscriptCli(argv);
  }
  if (first === "login") {
    // The bundled codex (not whatever `codex` is on PATH), in this terminal, with its own prompts.
    const { locateCodex } = await import("./codex/locate.js");
    const { spawn } = await import("node:child_process");
    const codex = locateCodex();
    const child = spawn(codex.file, [...codex.args, ...argv], { stdio: "inherit" });
    return new Promise<number>((resolve) => {
      child.on("error", (err) => {
        process.stderr.write(`codex-cli-acp: cannot run codex: ${err.message}\n`);
        resolve(1);
      });
      child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  }
  if (first !== undefined) {
    process.stderr.write(`codex-cli-acp: unknown argument ${JSON.stringify(first)}\n\n${HELP}`);
    return 2;
  }
  // Spawn codex first (tiny modules only), so it boots while the ACP side loads.
  const config = readConfig();
  const codexArgs = config.codexArgs;
  const { locateCodex } = await import("./codex/locate.js");
  const { spawnAppServer } = await import("./codex/spawn.js");
  let prestarted: ReturnType<typeof spawnAppServer> | undefined;
  try {
    prestarted = spawnAppServer(locateCodex(), { args: codexArgs });
  } catch {
    // No codex binary: host.start() logs why, and session/new answers with that message.
  }
  const [{ log }, { CodexHost }] = await Promise.all([import("./log/index.js"), import("./codex/index.js")]);
  const host = new CodexHost(
    {
      args: codexArgs,
      prestarted,
      clientInfo: { name: "codex-cli-acp", title: "Codex CLI ACP adapter", version: VERSION },
      ...(config.hangMs ? { hangMs: config.hangMs } : {}),
      ...(config.deadlineMs ? { deadlineMs: config.deadlineMs } : {}),
    },
    log,
  );
  host.start();
  const { serveStdio } = await import("./acp/index.js");
  await serveStdio(host, log);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code ?? 0),
  (err: unknown) => {
    process.stderr.write(`codex-cli-acp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
