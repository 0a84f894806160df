// `codex-cli-acp record ...` / `codex-cli-acp replay ...`.
// record: stdout carries exactly the agent's stdout (an editor is reading it); messages -> stderr.
// replay: run by a human or CI; the report goes to stdout.

const RECORD_USAGE = `  codex-cli-acp record --out FILE [--fake-model SCRIPT.json] [--keep-secrets] -- <agent command...>
      Proxy an ACP session between the editor (stdin/stdout) and the agent command,
      writing every JSON-RPC message to FILE (JSONL, contracts/transcript-format.md).
      FILE is created readable by you only (mode 0600). Credentials (authenticate's _meta,
      fields named like apiKey/token/password/secret, MCP servers' env and header values) and
      the files the editor served or the agent wrote are replaced by markers (a file by its
      size and sha256, so a replay still compares it); --keep-secrets writes them as they were.
      --fake-model runs the project's fake model with SCRIPT ({"responses": [...]}) and a
      hermetic CODEX_HOME for the agent, in a fresh workspace (printed on stderr: use it as
      the session's cwd); the script goes into the header and this run's paths, the folders
      the editor names and the model's address are stored as placeholders, so the transcript
      replays anywhere.
`;

const REPLAY_USAGE = `  codex-cli-acp replay --trust [--update] [--timeout SECONDS] [--stop-after-eof SECONDS]
                       [--agent -- <agent command...>] FILE|DIR...
      Play the client side of each transcript against the agent (default: the command in
      the transcript's header) and compare the agent's messages with the recording.
      A DIR stands for its *.jsonl files.
      --trust is required: a replay does what the file says (runs the agent command in
      its header, sets its environment, brings its scripted model, and sends the agent
      every recorded client message, MCP servers to start included), so a transcript is
      data until you trust it. Without --trust, each file says what it would do and is
      not replayed.
      --update rewrites each FILE with the live messages instead of failing on differences.
      --stop-after-eof stops (SIGTERM) an agent still running SECONDS after its stdin closed,
      for agents that do not exit on EOF; without it that is a failure (after 5 s).
      With --agent, the agent command is everything after "--", so put the FILEs first:
        codex-cli-acp replay --trust a.jsonl b.jsonl --agent -- node dist/index.js
`;

const RECORD_EXIT = "Exit code: the agent's (2: a usage error).\n";
const REPLAY_EXIT =
  "Exit codes: 0 all passed (or updated), 1 a replay failed, 2 usage error, unreadable or not trusted transcript.\n";

/** Each subcommand's own usage (`record --help`, `replay --help`, and a usage error of either). */
const USAGE = {
  record: `Usage:\n${RECORD_USAGE}\n${RECORD_EXIT}`,
  replay: `Usage:\n${REPLAY_USAGE}\n${REPLAY_EXIT}`,
} as const;

/** Both subcommands' usage. */
export const TRANSCRIPT_USAGE = `Usage:\n${RECORD_USAGE}${REPLAY_USAGE}
Exit codes: 0 all passed (or updated), 1 a replay failed, 2 usage error, unreadable or not trusted transcript,
record: the agent's exit code.
`;

/** Whether `args` ask for help: --help or -h among the subcommand's own options (not the agent command's, after "--"). */
function asksForHelp(args: string[]): boolean {
  const end = args.findIndex((a) => a === "--" || a === "--agent");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

class UsageError extends Error {}

interface RecordArgs {
  out: string;
  command: string[];
  fakeModelFile?: string;
  keepSecrets?: true;
}

interface ReplayArgs {
  files: string[];
  update: boolean;
  /** The reader trusts the files: replay them (trust.ts says what that does). */
  trust: boolean;
  agentCommand?: string[];
  timeoutMs?: number;
  stopAfterEofMs?: number;
}

function splitAtDashes(args: string[]): [string[], string[] | undefined] {
  const i = args.indexOf("--");
  return i === -1 ? [args, undefined] : [args.slice(0, i), args.slice(i + 1)];
}

export function parseRecordArgs(args: string[]): RecordArgs {
  const [opts, command] = splitAtDashes(args);
  let out: string | undefined;
  let fakeModelFile: string | undefined;
  let keepSecrets = false;
  for (let i = 0; i < opts.length; i++) {
    const a = opts[i]!;
    if (a === "--out" || a === "-o") {
      out = opts[++i];
      if (!out) throw new UsageError("record: --out needs a file name");
    } else if (a.startsWith("--out=")) out = a.slice("--out=".length);
    else if (a === "--fake-model") {
      fakeModelFile = opts[++i];
      if (!fakeModelFile) throw new UsageError("record: --fake-model needs a script file");
    } else if (a === "--keep-secrets") keepSecrets = true;
    else throw new UsageError(`record: unexpected argument ${JSON.stringify(a)}`);
  }
  if (!out) throw new UsageError("record: --out FILE is required");
  if (!command || command.length === 0) throw new UsageError('record: the agent command goes after "--"');
  return { out, command, ...(fakeModelFile ? { fakeModelFile } : {}), ...(keepSecrets ? { keepSecrets: true } : {}) };
}

export function parseReplayArgs(args: string[]): ReplayArgs {
  const result: ReplayArgs = { files: [], update: false, trust: false };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--update" || a === "-u") result.update = true;
    else if (a === "--trust") result.trust = true;
    else if (a === "--timeout") {
      const v = Number(args[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new UsageError("replay: --timeout needs a number of seconds");
      result.timeoutMs = v * 1000;
    } else if (a === "--stop-after-eof") {
      const v = Number(args[++i]);
      if (!Number.isFinite(v) || v < 0) throw new UsageError("replay: --stop-after-eof needs a number of seconds");
      result.stopAfterEofMs = v * 1000;
    } else if (a === "--agent") {
      if (args[i + 1] !== "--") throw new UsageError('replay: --agent must be followed by "--" and the agent command');
      const command = args.slice(i + 2);
      if (command.length === 0) throw new UsageError('replay: missing agent command after "--agent --"');
      result.agentCommand = command;
      i = args.length;
    } else if (a === "--") {
      throw new UsageError('replay: unexpected "--" (use --agent -- <command...>)');
    } else if (a.startsWith("-") && a !== "-") throw new UsageError(`replay: unknown option ${JSON.stringify(a)}`);
    else result.files.push(a);
  }
  if (result.files.length === 0) throw new UsageError("replay: at least one transcript FILE is required");
  return result;
}

/** Runs `record ...` or `replay ...` (argv[0] is the subcommand); resolves with the exit code. */
export async function runTranscriptCli(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    if ((sub === "record" || sub === "replay") && asksForHelp(rest)) {
      process.stdout.write(USAGE[sub]);
      return 0;
    }
    if (sub === "record") {
      const args = parseRecordArgs(rest);
      const { runRecorder } = await import("./record.js");
      const fakeModel = args.fakeModelFile ? await readFakeModel(args.fakeModelFile) : undefined;
      return await runRecorder({
        out: args.out,
        command: args.command,
        ...(fakeModel ? { fakeModel } : {}),
        ...(args.keepSecrets ? { keepSecrets: true } : {}),
      });
    }
    if (sub === "replay") {
      const args = parseReplayArgs(rest);
      return await runReplays(args);
    }
    if (sub === "--help" || sub === "-h" || sub === "help") {
      process.stdout.write(TRANSCRIPT_USAGE);
      return 0;
    }
    throw new UsageError(`unknown command ${JSON.stringify(sub ?? "")}: expected record or replay`);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(
        `codex-cli-acp: ${error.message}\n\n${sub === "record" || sub === "replay" ? USAGE[sub] : TRANSCRIPT_USAGE}`,
      );
      return 2;
    }
    throw error;
  }
}

/** A fake model script file: `{responses: [...], approvalPolicy?, sandboxMode?, extraConfig?}` or a bare array of responses, validated. */
async function readFakeModel(file: string): Promise<{ responses: unknown[] } & Record<string, unknown>> {
  const { readFile } = await import("node:fs/promises");
  const { parseFakeModelScript } = await import("../fake-model/index.js");
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new UsageError(`record: cannot read the fake model script ${file}: ${(error as Error).message}`);
  }
  const settings =
    json !== null && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  try {
    parseFakeModelScript(Array.isArray(json) ? json : { responses: settings.responses });
  } catch (error) {
    throw new UsageError(`record: ${file} is not a fake model script: ${(error as Error).message.split("\n")[0]}`);
  }
  return { ...settings, responses: Array.isArray(json) ? json : (settings.responses as unknown[]) };
}

/** The transcripts of a directory: its *.jsonl files (not recursive), sorted by name. */
export async function listTranscripts(dir: string): Promise<string[]> {
  const { readdir } = await import("node:fs/promises");
  const path = await import("node:path");
  const names = await readdir(dir);
  return names
    .filter((n) => n.endsWith(".jsonl"))
    .sort()
    .map((n) => path.join(dir, n));
}

async function expandFiles(files: string[]): Promise<string[]> {
  const { stat } = await import("node:fs/promises");
  const out: string[] = [];
  for (const f of files) {
    const st = await stat(f).catch(() => undefined);
    if (st?.isDirectory()) {
      const listed = await listTranscripts(f);
      if (listed.length === 0) throw new UsageError(`replay: no *.jsonl transcripts in ${f}`);
      out.push(...listed);
    } else out.push(f);
  }
  return out;
}

async function runReplays(args: ReplayArgs): Promise<number> {
  args = { ...args, files: await expandFiles(args.files) };
  const [
    { replayParsed, formatReplayReport },
    { TranscriptFormatError, parseTranscript, readTranscriptText },
    { whatReplayDoes, notTrustedMessage },
  ] = await Promise.all([import("./replay/index.js"), import("./format.js"), import("./trust.js")]);
  let failed = 0;
  let broken = 0;
  let untrusted = 0;
  for (const file of args.files) {
    try {
      const transcript = parseTranscript(await readTranscriptText(file), file);
      if (!args.trust) {
        untrusted++;
        process.stderr.write(
          `codex-cli-acp: ${notTrustedMessage(file, whatReplayDoes(transcript, args.agentCommand !== undefined))}\n`,
        );
        continue;
      }
      const result = await replayParsed(transcript, {
        update: args.update,
        ...(args.agentCommand ? { agentCommand: args.agentCommand } : {}),
        ...(args.timeoutMs ? { timeoutMs: args.timeoutMs } : {}),
        ...(args.stopAfterEofMs !== undefined ? { stopAfterEof: true, exitTimeoutMs: args.stopAfterEofMs } : {}),
      });
      process.stdout.write(formatReplayReport(result));
      if (!result.ok) failed++;
    } catch (error) {
      broken++;
      const message =
        error instanceof TranscriptFormatError
          ? `invalid transcript: ${error.message}`
          : `cannot read ${file}: ${(error as Error).message}`;
      process.stdout.write(`ERROR ${file}\n  ${message}\n`);
    }
  }
  if (args.files.length > 1) {
    const passed = args.files.length - failed - broken - untrusted;
    process.stdout.write(
      `${passed} passed, ${failed} failed, ${broken} unreadable${untrusted > 0 ? `, ${untrusted} not trusted` : ""}\n`,
    );
  }
  return broken > 0 || untrusted > 0 ? 2 : failed > 0 ? 1 : 0;
}
