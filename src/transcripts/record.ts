// `record`: a transparent stdio proxy between an ACP client (the editor) and an agent command.
// Bytes are forwarded unchanged in both directions (our stdout carries exactly the agent's
// stdout); a tap on each direction splits lines on "\n" and appends them to a transcript.
import { LineSplitter } from "../streams/index.js";
import { spawn } from "node:child_process";
import { rename, writeFile } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { log } from "../log/index.js";
import { type Direction, type TranscriptEntry, type TranscriptHeader, TRANSCRIPT_VERSION, serializeTranscript } from "./format.js";

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
  const [cmd, ...args] = options.command;
  if (!cmd) throw new Error("record: missing agent command");
  const out = path.resolve(options.out);
  const started = performance.now();
  const now = () => Math.round((performance.now() - started) * 1000) / 1000;

  const header: TranscriptHeader = {
    type: "header",
    version: TRANSCRIPT_VERSION,
    agent: { command: options.command, cwd: options.cwd ?? process.cwd() },
    protocolVersion: 1,
    recordedAt: new Date().toISOString(),
  };
  const entries: TranscriptEntry[] = [];
  let initializeSeen = false;
  let cwdSeen = false;
  // Writes are serialised; each rewrites the file (transcripts are small) so a crash mid-session
  // still leaves a valid, parseable file up to the last flushed line.
  let writing: Promise<void> = Promise.resolve();
  let dirty = false;
  const flush = (): Promise<void> => {
    if (!initializeSeen && !dirty) return writing;
    dirty = false;
    // Canonical key order (header fields filled in late still print near the top).
    const { type, version, agent, protocolVersion, clientCapabilities, paths, recordedAt, ...rest } = header;
    const ordered: TranscriptHeader = { type, version, agent, protocolVersion, ...(clientCapabilities ? { clientCapabilities } : {}), ...rest, ...(paths ? { paths } : {}), recordedAt };
    const text = serializeTranscript(ordered, entries);
    writing = writing
      .then(async () => {
        const t0 = performance.now();
        await writeFile(`${out}.tmp`, text);
        await rename(`${out}.tmp`, out);
        lastWriteMs = performance.now() - t0;
      })
      .catch((error: unknown) => log.error({ err: error, out }, "record: cannot write transcript"));
    return writing;
  };
  let flushTimer: NodeJS.Timeout | undefined;
  // Each rewrite costs time proportional to the transcript: space them by 20x the last
  // write, so writing stays a small share of a long session instead of growing with its square.
  let lastWriteMs = 0;
  const scheduleFlush = () => {
    dirty = true;
    if (!initializeSeen || flushTimer) return;
    flushTimer = setTimeout(() => {
      flushTimer = undefined;
      void flush();
    }, Math.max(50, lastWriteMs * 20));
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
        if (p.clientCapabilities && typeof p.clientCapabilities === "object") {
          header.clientCapabilities = p.clientCapabilities as Record<string, unknown>;
        }
      }
      if ((method === "session/new" || method === "session/load") && !cwdSeen && typeof p.cwd === "string") {
        cwdSeen = true;
        header.paths = { "<CWD>": p.cwd };
      }
    }
    scheduleFlush();
  };

  const child = spawn(cmd, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
    shell: false,
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

  const forward = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null) child.kill(signal);
  };
  const onSigint = forward("SIGINT");
  const onSigterm = forward("SIGTERM");
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);

  const code = await new Promise<number>((resolve) => {
    child.on("error", (error) => {
      log.error({ err: error, command: options.command }, "record: cannot start agent");
      stderr.write(`record: cannot start ${JSON.stringify(cmd)}: ${error.message}\n`);
      resolve(127);
    });
    child.on("close", (exitCode, signal) => resolve(exitCode ?? signalExitCode(signal)));
  });
  fromAgent.end();

  process.off("SIGINT", onSigint);
  process.off("SIGTERM", onSigterm);
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
