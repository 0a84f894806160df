// `record`: a transparent stdio proxy between an ACP client (the editor) and an agent command.
// Bytes are forwarded unchanged in both directions (our stdout carries exactly the agent's
// stdout); a tap on each direction splits lines on "\n" and appends them to a transcript.
import { LineSplitter } from "../../src/streams/index.js";
import { startAgentProcess } from "./agent-process.js";
import { constants as osConstants } from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { log } from "../../src/log/index.js";
import {
  type Direction,
  type TranscriptEntry,
  type TranscriptHeader,
  TRANSCRIPT_VERSION,
  serializeTranscript,
} from "./format.js";
import { ClientFolders } from "./client-folders.js";
import { pathsToPlaceholders } from "./normalise.js";
import { writePrivateFile } from "./private-file.js";
import { redactCommand, redactTranscript, secretsOfEnvironment } from "./redaction/redact.js";
import { access, stat } from "node:fs/promises";
import { constants } from "node:fs";
import { prepareSandbox, type Sandbox } from "./replay/sandbox.js";

export interface RecorderOptions {
  /** Transcript file to write. */
  out: string;
  /** The agent command line (argv, no shell). */
  command: string[];
  /** Defaults: process.stdin / process.stdout / process.stderr (tests may inject streams). */
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * A fake model script (the header's `fakeModel`: `{responses, approvalPolicy?, ...}`): the
   * project's fake model runs on 127.0.0.1 with a hermetic CODEX_HOME, as in a replay, the agent
   * runs in a fresh workspace with that environment, the script goes into the header, and this
   * run's paths and the model's address are stored as placeholders, so anyone can replay it.
   */
  fakeModel?: { responses: unknown[] } & Record<string, unknown>;
  /**
   * Write credentials and file contents as they went over the wire; by default they are replaced
   * by markers (redact.ts), since transcripts get shared.
   */
  keepSecrets?: boolean;
}

/** Turns one line of the wire into a transcript entry (null for blank lines, which carry nothing). */
export function entryForLine(dir: Direction, t: number, line: string): TranscriptEntry | null {
  if (line.trim() === "") return null;
  try {
    const value: unknown = JSON.parse(line);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return { type: "message", dir, t, msg: value as Record<string, unknown> };
    }
  } catch {
    // not JSON: recorded as raw below
  }
  return { type: "raw", dir, t, text: line };
}

function signalExitCode(signal: NodeJS.Signals | null): number {
  if (!signal) return 1;
  const num = (osConstants.signals as Record<string, number | undefined>)[signal];
  return 128 + (num ?? 1);
}

/**
 * Runs the agent behind a recording proxy until it exits; resolves with the agent's exit code
 * (128+signal when it was killed). The transcript is rewritten at the end with the final header.
 */
export async function runRecorder(options: RecorderOptions): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const [cmd] = options.command;
  if (!cmd) throw new Error("record: missing agent command");
  const out = path.resolve(options.out);
  // Refused before the agent starts: a session recorded to a file that cannot be written is lost.
  const unwritable = await whyUnwritable(out);
  if (unwritable !== undefined) {
    stderr.write(`record: cannot write the transcript to ${out}: ${unwritable}\n`);
    return 2;
  }
  const started = performance.now();
  const now = () => Math.round((performance.now() - started) * 1000) / 1000;

  const header: TranscriptHeader = {
    type: "header",
    version: TRANSCRIPT_VERSION,
    agent: {
      command: options.keepSecrets ? options.command : redactCommand(options.command),
      cwd: options.cwd ?? process.cwd(),
    },
    protocolVersion: 1,
    recordedAt: new Date().toISOString(),
    ...(options.keepSecrets ? {} : { redacted: true }),
  };
  // The caller's environment under the hermetic home's variables: a recording never reaches the user's own CODEX_HOME.
  const sandbox = options.fakeModel
    ? await prepareSandbox({ ...header, fakeModel: options.fakeModel }, undefined, options.env ?? process.env)
    : undefined;
  try {
    return await record(sandbox);
  } finally {
    await sandbox?.dispose();
  }

  async function record(sandbox: Sandbox | undefined): Promise<number> {
    if (sandbox && options.fakeModel) {
      header.fakeModel = options.fakeModel;
      // No cwd: like the goldens, a replay runs the command from where it is started (a checkout).
      header.agent = { command: pathsToPlaceholders(options.command, sandbox.placeholders) as string[] };
      stderr.write(
        `record: fake model at ${String(sandbox.placeholders["<FAKE_MODEL_URL>"])}; workspace ${sandbox.workspace} (the session's cwd)\n`,
      );
    }
    // The folders the client names (its session's cwd, additionalDirectories): with a sandbox,
    // written as placeholders like the sandbox's own paths; without, named in `header.paths`.
    const folders = new ClientFolders(sandbox?.placeholders);
    /** What is written: with a sandbox, its paths, the client's folders and the model's address as placeholders (they are gone after). */
    const portable = <T>(value: T): T => pathsToPlaceholders(value, folders.placeholders) as T;
    const entries: TranscriptEntry[] = [];
    // The credentials of the agent's environment: an agent (or the model's printenv) may echo them.
    const environmentSecrets = options.keepSecrets
      ? []
      : secretsOfEnvironment(sandbox ? sandbox.env : (options.env ?? process.env));
    /** Set when the agent never started: an earlier transcript of the same name is then left as it was. */
    let notStarted = false;
    let initializeSeen = false;
    // Writes are serialised; each rewrites the file (transcripts are small) so a crash mid-session
    // still leaves a valid, parseable file up to the last flushed line.
    let writing: Promise<void> = Promise.resolve();
    let dirty = false;
    const flush = (): Promise<void> => {
      if (notStarted || (!initializeSeen && !dirty)) return writing;
      dirty = false;
      // Canonical key order (header fields filled in late still print near the top).
      const { type, version, agent, protocolVersion, clientCapabilities, paths, recordedAt, ...rest } = header;
      const ordered: TranscriptHeader = {
        type,
        version,
        agent,
        protocolVersion,
        ...(clientCapabilities ? { clientCapabilities } : {}),
        ...rest,
        ...(paths ? { paths } : {}),
        recordedAt,
      };
      const t0 = performance.now();
      const written = sandbox ? entries.map(portable) : entries;
      // Redacted as a whole each time: a credential seen late is scrubbed from earlier lines too.
      // The digests are of the portable text (placeholders), as a replay normalises the live one.
      const text = serializeTranscript(
        ordered,
        options.keepSecrets
          ? written
          : redactTranscript(written, sandbox ? {} : (header.paths ?? {}), { secrets: environmentSecrets }),
      );
      const preparedMs = performance.now() - t0;
      writing = writing
        .then(async () => {
          const t1 = performance.now();
          await writePrivateFile(out, text);
          lastWriteMs = preparedMs + performance.now() - t1;
        })
        .catch((error: unknown) => log.error({ err: error, out }, "record: cannot write transcript"));
      return writing;
    };
    let flushTimer: NodeJS.Timeout | undefined;
    // Each rewrite (redaction, serialisation, write) costs time proportional to the transcript:
    // space them by 20x the last one, so writing stays a small share of a long session instead
    // of growing with its square.
    let lastWriteMs = 0;
    const scheduleFlush = () => {
      dirty = true;
      if (!initializeSeen || flushTimer) return;
      flushTimer = setTimeout(
        () => {
          flushTimer = undefined;
          void flush();
        },
        Math.max(50, lastWriteMs * 20),
      );
    };

    const onEntry = (entry: TranscriptEntry | null) => {
      if (!entry) return;
      entries.push(entry);
      if (entry.type === "message" && entry.dir === "client->agent") {
        const { method, params } = entry.msg as { method?: unknown; params?: unknown };
        const p = (params ?? {}) as Record<string, unknown>;
        if (method === "initialize" && !initializeSeen) {
          initializeSeen = true;
          if (typeof p.protocolVersion === "number") header.protocolVersion = p.protocolVersion;
          // v1 says `clientCapabilities`, v2 `capabilities`.
          const capabilities = p.clientCapabilities ?? p.capabilities;
          if (capabilities && typeof capabilities === "object")
            header.clientCapabilities = capabilities as Record<string, unknown>;
        }
        folders.learn(entry.msg);
        if (!sandbox && Object.keys(folders.named).length > 0) header.paths = { ...folders.named };
        // A replay gives each folder a fresh one of its own.
        if (folders.directories.length > 0)
          header.workspace = { ...header.workspace, directories: [...folders.directories] };
      }
      scheduleFlush();
    };

    const child = startAgentProcess(options.command, {
      cwd: options.cwd,
      env: sandbox ? sandbox.env : (options.env ?? process.env),
    });

    const fromClient = new LineSplitter((line) => onEntry(entryForLine("client->agent", now(), line)));
    const fromAgent = new LineSplitter((line) => onEntry(entryForLine("agent->client", now(), line)));

    // client -> agent: bytes unchanged; ending our stdin ends the child's.
    const onStdinData = (chunk: Buffer) => fromClient.push(chunk);
    const onStdinEnd = () => fromClient.end();
    stdin.on("data", onStdinData);
    stdin.on("end", onStdinEnd);
    stdin.pipe(child.stdin);
    child.stdin.on("error", (error) => log.debug({ err: error }, "record: agent stdin closed"));

    // agent -> client: bytes unchanged.
    child.stdout.on("data", (chunk: Buffer) => fromAgent.push(chunk));
    child.stdout.pipe(stdout, { end: false });
    child.stderr.pipe(stderr, { end: false });
    // A client gone (EPIPE): nothing more is forwarded to it, and the session is still recorded to its end.
    const onStdoutError = (error: Error) => {
      log.warn({ err: error }, "record: the client stopped reading; recording goes on");
      child.stdout.unpipe(stdout);
      // Unpiped from its last destination, the agent's stdout pauses: it is still read for the transcript.
      child.stdout.resume();
    };
    const onStderrError = () => child.stderr.unpipe(stderr);
    stdout.on("error", onStdoutError);
    stderr.on("error", onStderrError);

    // The first signal is passed on; a second one (the agent did not stop) kills it.
    let signalled = false;
    const forward = (signal: NodeJS.Signals) => () => {
      if (child.exitCode !== null) return;
      child.kill(signalled ? "SIGKILL" : signal);
      signalled = true;
    };
    const onSigint = forward("SIGINT");
    const onSigterm = forward("SIGTERM");
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);

    const code = await new Promise<number>((resolve) => {
      child.on("error", (error: NodeJS.ErrnoException) => {
        notStarted = true;
        // Not the error itself: its spawnargs are the command line, credentials included.
        log.error({ code: error.code, command: redactCommand(options.command) }, "record: cannot start agent");
        stderr.write(`record: cannot start ${JSON.stringify(cmd)}: ${error.message}\n`);
        resolve(127);
      });
      child.on("close", (exitCode, signal) => resolve(exitCode ?? signalExitCode(signal)));
    });
    fromAgent.end();

    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
    stdout.off("error", onStdoutError);
    stderr.off("error", onStderrError);
    stdin.unpipe(child.stdin);
    stdin.off("data", onStdinData);
    stdin.off("end", onStdinEnd);
    if (stdin === process.stdin) process.stdin.pause();
    if (flushTimer) clearTimeout(flushTimer);
    dirty = true;
    initializeSeen = true; // write the file even when the client never initialized
    await flush();
    log.debug({ out, entries: entries.length, code }, "record: transcript written");
    return code;
  }
}

/** Why a transcript cannot be written to `out` (a folder, a parent folder missing or not one), or undefined. */
async function whyUnwritable(out: string): Promise<string | undefined> {
  const target = await stat(out).catch(() => undefined);
  if (target?.isDirectory()) return "it is a folder";
  const parent = await stat(path.dirname(out)).catch(() => undefined);
  if (!parent) return `its folder ${path.dirname(out)} does not exist`;
  if (!parent.isDirectory()) return `${path.dirname(out)} is not a folder`;
  // The file is written beside itself and renamed over: the folder must take new files.
  if (
    !(await access(path.dirname(out), constants.W_OK).then(
      () => true,
      () => false,
    ))
  )
    return `its folder ${path.dirname(out)} is not writable`;
  return undefined;
}
