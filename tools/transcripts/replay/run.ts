// One replay: prepares the sandbox, starts the agent, sends the recorded client messages in
// order (each once the agent messages recorded before it have arrived), feeds the agent's lines
// to the matcher, closes stdin at the end and expects the agent to exit; with --update, rewrites
// the transcript from what the agent said.
import { startAgentProcess, stopAgentProcess } from "../agent-process.js";
import { log } from "../../../src/log/index.js";
import { LineSplitter } from "../../../src/streams/index.js";
import { type Transcript, type TranscriptEntry, serializeTranscript } from "../format.js";
import { pathsToPlaceholders, placeholdersToPaths, type Placeholders } from "../normalise.js";
import { writePrivateFile } from "../private-file.js";
import { entryForLine } from "../record.js";
import { redactTranscript, secretsOfEnvironment } from "../redaction/redact.js";
import { loadAcpValidators } from "../schema.js";
import { Matcher } from "./matcher.js";
import { kindOf, labelOf, type Json } from "./messages.js";
import { Waiters } from "./pacing.js";
import { RecordingIndex, type RecordedAgent } from "./recording.js";
import { prepareSandbox } from "./sandbox.js";
import type { AgentProcess, Mismatch, ReplayOptions, ReplayResult, StartAgentSpec } from "./types.js";

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_EXIT_TIMEOUT_MS = 5_000;
/** Quiet time after the last expected message, to catch extra messages before stdin is closed. */
const SETTLE_MS = 150;
/**
 * Quiet time after which recorded notifications that never came are given up as missing: long
 * enough that a loaded machine's slow codex is not mistaken for an agent that will never send.
 */
const GIVE_UP_QUIET_MS = 10_000;
const STDERR_TAIL_BYTES = 8 * 1024;
/** Failures after which nothing more can be compared: the agent is gone, hung or never started. */
const STOPS_THE_RUN: ReadonlySet<Mismatch["kind"]> = new Set(["setup", "agent-exit", "timeout"]);

export class ReplayRun {
  private readonly started = performance.now();
  private readonly mismatches: Mismatch[] = [];
  private readonly waiters = new Waiters();
  private readonly liveLog: TranscriptEntry[] = [];
  private readonly update: boolean;
  private readonly timeoutMs: number;
  private readonly recording: RecordingIndex;
  private readonly agentCommand: string[];
  private readonly recordedPlaceholders: Placeholders;
  private livePlaceholders: Placeholders = {};
  private matcher: Matcher | undefined;
  private sent = 0;
  private received = 0;
  private lastTraffic = performance.now();
  private aborted = false;
  private exited = false;
  /** Whether the client's side was over (the agent's stdin ended) / the run stopped before it was. */
  private eofSent = false;
  /** The environment the agent ran with (the sandbox's, over this process's). */
  private agentEnv: NodeJS.ProcessEnv = {};
  private cutShort = false;
  private exitCode: number | null = null;
  private stderrTail = "";
  private child: AgentProcess | undefined;

  constructor(
    private readonly transcript: Transcript,
    private readonly opts: ReplayOptions,
  ) {
    this.update = opts.update ?? false;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.agentCommand = opts.agentCommand ?? transcript.header.agent.command;
    this.recordedPlaceholders = { ...(transcript.header.paths ?? {}) };
    this.recording = new RecordingIndex(transcript);
  }

  async execute(): Promise<ReplayResult> {
    let dispose: (() => Promise<void>) | undefined;
    try {
      const sandbox = await prepareSandbox(this.transcript.header, this.opts.env);
      dispose = () => sandbox.dispose();
      this.livePlaceholders = sandbox.placeholders;
      this.matcher = new Matcher({
        recording: this.recording,
        validators: await loadAcpValidators(),
        recordedPlaceholders: this.recordedPlaceholders,
        livePlaceholders: this.livePlaceholders,
        knownFileContents: Object.values(this.transcript.header.workspace?.files ?? {}).map(
          (c) => placeholdersToPaths(c, sandbox.placeholders) as string,
        ),
        fail: (m) => this.fail(m),
        send: (msg) => this.write({ type: "message", dir: "client->agent", t: 0, msg }, JSON.stringify(msg)),
        aborted: () => this.aborted,
      });
      const command = placeholdersToPaths(this.agentCommand, sandbox.placeholders) as string[];
      this.agentEnv = sandbox.env;
      await this.runAgent(this.matcher, { command, cwd: sandbox.cwd, env: sandbox.env });
    } catch (error) {
      this.fail({ kind: "setup", summary: `cannot run the replay: ${(error as Error).message}` });
    } finally {
      // The group too when the agent itself exited: what it started must not outlive the run.
      if (this.child) this.kill("SIGKILL");
      await dispose?.();
    }

    let updated = false;
    // A run cut short (the agent crashed, timed out, or never started) would put a part of the
    // session in place of the whole recording: the file is kept, and the report says so.
    if (this.update && this.liveLog.length > 0 && !this.cutShort) {
      await this.writeUpdate();
      updated = true;
    }
    const failing = this.mismatches.filter(
      (m) => !this.update || !(m.kind === "difference" || m.kind === "unexpected" || m.kind === "missing"),
    );
    return {
      file: this.transcript.file,
      ok: failing.length === 0,
      mismatches: this.update ? failing : this.mismatches,
      sent: this.sent,
      received: this.received,
      updated,
      ...(this.update && !updated
        ? { notUpdated: "the run stopped before the recording's end, so the file was not rewritten" }
        : {}),
      agentCommand: this.agentCommand,
      agentExitCode: this.exitCode,
      stderrTail: this.stderrTail,
      durationMs: Math.round(performance.now() - this.started),
    };
  }

  private now(): number {
    return Math.round((performance.now() - this.started) * 1000) / 1000;
  }

  private fail(m: Mismatch): void {
    this.mismatches.push(m);
    // Stopped before the client's last message went out: the live log holds only part of the session.
    if (STOPS_THE_RUN.has(m.kind) && !this.eofSent) this.cutShort = true;
    log.debug({ mismatch: m.summary }, "replay: mismatch");
    // A message that differs (or is extra, or off-schema) still counts as arrived: the run goes on
    // so the report names every difference. What leaves nothing to compare stops it.
    if (STOPS_THE_RUN.has(m.kind)) this.abort();
  }

  /** Signals the agent's process group (see runAgent); on Windows ends its process tree. */
  private kill(signal: NodeJS.Signals): void {
    if (this.child) stopAgentProcess(this.child, signal);
  }

  private abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    if (this.child && !this.exited) this.kill("SIGKILL");
    this.waiters.wake();
  }

  private async runAgent(matcher: Matcher, spec: StartAgentSpec): Promise<void> {
    const start =
      this.opts.startAgent ??
      // Its own process group: kill() signals the group (see there).
      ((s: StartAgentSpec) => startAgentProcess(s.command, { cwd: s.cwd, env: s.env, ownGroup: true }));
    log.debug({ command: spec.command, cwd: spec.cwd }, "replay: starting agent");
    const child = start(spec);
    this.child = child;
    const splitter = new LineSplitter((line) => this.onAgentLine(matcher, line));
    child.stdout.on("data", (chunk: Buffer) => splitter.push(chunk));
    child.stdout.on("end", () => splitter.end());
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    child.stdin.on("error", (error) => log.debug({ err: error }, "replay: agent stdin error"));
    const exited = new Promise<void>((resolve) => {
      child.on("error", (error) => {
        this.exited = true;
        this.fail({ kind: "setup", summary: `cannot start agent ${JSON.stringify(spec.command)}: ${error.message}` });
        resolve();
      });
      child.on("close", (code, signal) => {
        this.exited = true;
        this.exitCode = code ?? (signal ? 128 : null);
        this.waiters.wake();
        resolve();
      });
    });

    const entries = this.transcript.entries;
    for (let pos = 0; pos < entries.length && !this.aborted; pos++) {
      const entry = entries[pos]!;
      if (entry.dir !== "client->agent") continue;
      if (entry.type === "message" && kindOf(entry.msg) === "response") continue; // sent when the agent asks
      if (
        !(await this.waitForAgentBefore(
          matcher,
          pos,
          `before sending ${labelOf(entry)} (recording line ${entry.line})`,
        ))
      )
        break;
      const live = matcher.liveClientMessage(entry);
      this.write(live.entry, live.line);
    }
    if (!this.aborted) await this.waitForAgentBefore(matcher, entries.length, "at the end of the recording");
    if (!this.aborted) {
      await this.quiet(SETTLE_MS);
      this.eofSent = true;
      child.stdin.end();
      const exitTimeout = this.opts.exitTimeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS;
      const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), exitTimeout).unref());
      const inTime = await Promise.race([exited.then(() => true), timer]);
      if (!inTime && this.opts.stopAfterEof) {
        // An agent that does not exit on EOF by design (Zed's adapter): stopped, not failed.
        log.debug({ graceMs: exitTimeout }, "replay: stopping the agent after EOF");
        this.kill("SIGTERM");
        const stopped = await Promise.race([
          exited.then(() => true),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000).unref()),
        ]);
        if (!stopped) this.kill("SIGKILL");
      } else if (!inTime)
        this.fail({
          kind: "agent-exit",
          summary: `agent still running ${exitTimeout / 1000} s after its stdin was closed (an agent that must be stopped: --stop-after-eof SECONDS)`,
        });
    }
    if (this.child && !this.exited) this.kill("SIGKILL");
    await exited;
    if (!this.aborted) matcher.finish();
  }

  /** Waits until quiet for `ms` (no agent traffic). */
  private async quiet(ms: number): Promise<void> {
    while (!this.aborted && !this.exited) {
      const idle = performance.now() - this.lastTraffic;
      if (idle >= ms) return;
      await this.waiters.next(ms - idle);
    }
  }

  /**
   * Waits until the agent messages recorded before position `pos` have arrived. In update mode
   * the recording may be out of date, so only the responses are awaited, then a quiet period.
   */
  private async waitForAgentBefore(matcher: Matcher, pos: number, context: string): Promise<boolean> {
    const before = this.recording.agent.filter((r) => r.pos < pos);
    const outstanding = (): RecordedAgent | undefined =>
      this.update
        ? before.find(
            (r) =>
              r.entry.type === "message" && kindOf(r.entry.msg) === "response" && !matcher.answered(r.entry.msg.id),
          )
        : before.find((r) => !r.matched);
    const deadline = performance.now() + this.timeoutMs;
    for (;;) {
      if (this.aborted) return false;
      const waiting = outstanding();
      if (!waiting) break;
      if (this.exited) {
        this.fail({
          kind: "agent-exit",
          line: waiting.entry.line,
          summary: `agent exited (code ${String(this.exitCode)}) while ${waiting.label} (recording line ${waiting.entry.line}) was still expected, ${context}`,
        });
        return false;
      }
      if (!this.update && this.givenUp(matcher, before)) continue;
      const left = deadline - performance.now();
      if (left <= 0) {
        this.fail({
          kind: "timeout",
          line: waiting.entry.line,
          summary: `timed out after ${this.timeoutMs / 1000} s waiting for ${waiting.label} (recording line ${waiting.entry.line}), ${context}`,
          expected: waiting.entry.type === "message" ? waiting.entry.msg : waiting.entry.text,
        });
        return false;
      }
      await this.waiters.next(this.update ? left : Math.min(left, this.giveUpQuietMs()));
    }
    if (this.update) await this.quiet(SETTLE_MS);
    return !this.aborted;
  }

  /**
   * A recorded notification or request the agent does not send (another agent's extension, a
   * feature it lacks) must not hide every later difference: once each response recorded so far
   * has arrived and the agent has been quiet for a while, the ones still outstanding are
   * reported missing and the replay goes on. True when it gave some up.
   */
  private givenUp(matcher: Matcher, before: readonly RecordedAgent[]): boolean {
    if (performance.now() - this.lastTraffic < this.giveUpQuietMs()) return false;
    const isResponse = (r: RecordedAgent): boolean => r.entry.type === "message" && kindOf(r.entry.msg) === "response";
    if (before.some((r) => isResponse(r) && !r.matched)) return false;
    const missing = before.filter((r) => !r.matched);
    for (const r of missing) {
      r.matched = true;
      this.fail({
        kind: "missing",
        line: r.entry.line,
        summary: `missing ${r.label} (recording line ${r.entry.line})`,
        expected: r.entry.type === "message" ? r.entry.msg : r.entry.text,
      });
    }
    return missing.length > 0;
  }

  /** Longer with a longer --timeout: a slow machine is given the time its user asked for. */
  private giveUpQuietMs(): number {
    return Math.max(GIVE_UP_QUIET_MS, this.timeoutMs / 3);
  }

  private write(entry: TranscriptEntry, line: string): void {
    // A message sent starts a new wait for the agent's answer to it.
    this.lastTraffic = performance.now();
    this.liveLog.push({ ...entry, t: this.now() });
    this.sent++;
    if (this.exited || !this.child) return;
    this.child.stdin.write(`${line}\n`);
  }

  private onAgentLine(matcher: Matcher, line: string): void {
    const entry = entryForLine("agent->client", this.now(), line);
    if (!entry) return;
    this.received++;
    this.lastTraffic = performance.now();
    this.liveLog.push(entry);
    try {
      if (!this.aborted) matcher.onAgentEntry(entry);
    } finally {
      this.waiters.wake();
    }
  }

  private async writeUpdate(): Promise<void> {
    const header = { ...this.transcript.header, recordedAt: new Date().toISOString() };
    delete header.paths; // the rewritten messages use the placeholders themselves
    if (this.opts.agentCommand) header.agent = { ...header.agent, command: this.opts.agentCommand };
    const entries = this.liveLog.map((e) =>
      e.type === "raw"
        ? { ...e, text: pathsToPlaceholders(e.text, this.livePlaceholders) as string }
        : { ...e, msg: pathsToPlaceholders(e.msg, this.livePlaceholders) as Json },
    );
    // A redacted recording stays redacted: what the live run said is redacted the same way.
    // The credentials of the agent's environment (this user's, inherited) too: a printenv replayed would show them.
    const redacted = header.redacted
      ? redactTranscript(entries, {}, { secrets: secretsOfEnvironment(this.agentEnv) })
      : entries;
    await writePrivateFile(this.transcript.file, serializeTranscript(header, redacted));
  }
}
