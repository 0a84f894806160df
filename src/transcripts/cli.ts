// `codex-cli-acp record ...` / `codex-cli-acp replay ...`.
// record: stdout carries exactly the agent's stdout (an editor is reading it); messages -> stderr.
// replay: run by a human or CI; the report goes to stdout.

export const TRANSCRIPT_USAGE = `Usage:
  codex-cli-acp record --out FILE -- <agent command...>
      Proxy an ACP session between the editor (stdin/stdout) and the agent command,
      writing every JSON-RPC message to FILE (JSONL, contracts/transcript-format.md).
  codex-cli-acp replay [--update] [--timeout SECONDS] [--agent -- <agent command...>] FILE|DIR...
      Play the client side of each transcript against the agent (default: the command in
      the transcript's header) and compare the agent's messages with the recording.
      A DIR stands for its *.jsonl files.
      --update rewrites each FILE with the live messages instead of failing on differences.
      With --agent, the agent command is everything after "--", so put the FILEs first:
        codex-cli-acp replay a.jsonl b.jsonl --agent -- node dist/index.js

Exit codes: 0 all passed (or updated), 1 a replay failed, 2 usage error or unreadable transcript,
record: the agent's exit code.
`;

class UsageError extends Error {}

interface RecordArgs {
  out: string;
  command: string[];
}

interface ReplayArgs {
  files: string[];
  update: boolean;
  agentCommand?: string[];
  timeoutMs?: number;
}

function splitAtDashes(args: string[]): [string[], string[] | undefined] {
  const i = args.indexOf("--");
  return i === -1 ? [args, undefined] : [args.slice(0, i), args.slice(i + 1)];
}

export function parseRecordArgs(args: string[]): RecordArgs {
  const [opts, command] = splitAtDashes(args);
  let out: string | undefined;
  for (let i = 0; i < opts.length; i++) {
    const a = opts[i]!;
    if (a === "--out" || a === "-o") {
      out = opts[++i];
      if (!out) throw new UsageError("record: --out needs a file name");
    } else if (a.startsWith("--out=")) out = a.slice("--out=".length);
    else throw new UsageError(`record: unexpected argument ${JSON.stringify(a)}`);
  }
  if (!out) throw new UsageError("record: --out FILE is required");
  if (!command || command.length === 0) throw new UsageError('record: the agent command goes after "--"');
  return { out, command };
}

export function parseReplayArgs(args: string[]): ReplayArgs {
  const result: ReplayArgs = { files: [], update: false };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--update" || a === "-u") result.update = true;
    else if (a === "--timeout") {
      const v = Number(args[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new UsageError("replay: --timeout needs a number of seconds");
      result.timeoutMs = v * 1000;
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
    if (sub === "record") {
      const args = parseRecordArgs(rest);
      const { runRecorder } = await import("./record.js");
      return await runRecorder(args);
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
      process.stderr.write(`codex-cli-acp: ${error.message}\n\n${TRANSCRIPT_USAGE}`);
      return 2;
    }
    throw error;
  }
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
  const [{ replayTranscript, formatReplayReport }, { TranscriptFormatError }] = await Promise.all([
    import("./replay/index.js"),
    import("./format.js"),
  ]);
  let failed = 0;
  let broken = 0;
  for (const file of args.files) {
    try {
      const result = await replayTranscript(file, {
        update: args.update,
        ...(args.agentCommand ? { agentCommand: args.agentCommand } : {}),
        ...(args.timeoutMs ? { timeoutMs: args.timeoutMs } : {}),
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
    const passed = args.files.length - failed - broken;
    process.stdout.write(`${passed} passed, ${failed} failed, ${broken} unreadable\n`);
  }
  return broken > 0 ? 2 : failed > 0 ? 1 : 0;
}
