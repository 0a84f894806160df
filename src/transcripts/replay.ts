// `replay`: plays the client side of a recorded ACP session against a live agent and compares
// every agent message with the recording (rules: contracts/transcript-format.md).
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { log } from "../log/index.js";
import { type LocatedEntry, type Transcript, type TranscriptEntry, parseTranscript, serializeTranscript } from "./format.js";
import {
  IdMap,
  JSONRPC_ID,
  type Placeholders,
  compareMessages,
  normaliseMessage,
  pathsToPlaceholders,
  placeholdersToPaths,
  show,
} from "./normalise.js";
import { LineSplitter } from "../streams/index.js";
import { entryForLine } from "./record.js";
import { type AcpValidator, loadAcpValidator } from "./schema.js";

export interface StartAgentSpec {
  command: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface ReplayOptions {
  /** The agent under test; default: the header's agent.command. */
  agentCommand?: string[];
  /** Rewrite the transcript with the live messages (header kept) instead of failing on differences. */
  update?: boolean;
  /** Longest wait for expected agent messages before a client message is sent (default 30 s). */
  timeoutMs?: number;
  /** How long the agent may take to exit after its stdin is closed (default 5 s); longer is a failure. */
  exitTimeoutMs?: number;
  /** Extra environment for the agent (over process.env, the fake model's env and header.env). */
  env?: Record<string, string>;
  /** Starts the agent process (tests); default: node:child_process spawn, no shell. */
  startAgent?: (spec: StartAgentSpec) => ChildProcessWithoutNullStreams;
}

export type MismatchKind = "difference" | "schema" | "unexpected" | "missing" | "timeout" | "agent-exit" | "setup";

export interface Mismatch {
  kind: MismatchKind;
  /** One line: what, where. */
  summary: string;
  /** Line of the recording the problem relates to, when there is one. */
  line?: number;
  /** For a difference: JSON path of the first differing field, and both values. */
  path?: string;
  expected?: unknown;
  actual?: unknown;
  /** Multi-line detail (diff, both normalised messages, violations). */
  detail?: string;
}

export interface ReplayResult {
  file: string;
  ok: boolean;
  mismatches: Mismatch[];
  /** Messages sent to the agent / received from it. */
  sent: number;
  received: number;
  /** True when --update rewrote the file. */
  updated: boolean;
  agentCommand: string[];
  agentExitCode: number | null;
  /** The end of the agent's stderr (for the report). */
  stderrTail: string;
  durationMs: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_EXIT_TIMEOUT_MS = 5_000;
/** Quiet time after the last expected message, to catch extra messages before stdin is closed. */
const SETTLE_MS = 150;
const STDERR_TAIL_BYTES = 8 * 1024;

type Json = Record<string, unknown>;
type Kind = "request" | "notification" | "response";

function kindOf(msg: Json): Kind {
  if (typeof msg.method === "string") return "id" in msg ? "request" : "notification";
  return "response";
}

function idKey(id: unknown): string {
  return JSON.stringify(id ?? null);
}

function sessionIdOf(msg: Json): unknown {
  const params = msg.params;
  return params && typeof params === "object" ? (params as Json).sessionId : undefined;
}

interface RecordedAgent {
  entry: LocatedEntry;
  /** Position among all entries. */
  pos: number;
  matched: boolean;
  label: string;
}

function labelOf(entry: TranscriptEntry, requestMethod?: string): string {
  if (entry.type === "raw") return `${entry.dir} non-JSON line`;
  const msg = entry.msg;
  const kind = kindOf(msg);
  if (kind === "response") {
    const what = "error" in msg ? "error response" : "response";
    return `${entry.dir} ${what} to ${requestMethod ?? "request"} id ${idKey(msg.id)}`;
  }
  let label = `${entry.dir} ${kind} ${String(msg.method)}`;
  const update = (msg.params as Json | undefined)?.update as Json | undefined;
  if (msg.method === "session/update" && typeof update?.sessionUpdate === "string") label += ` (${update.sessionUpdate})`;
  return label;
}

class Waiters {
  private resolvers: Array<() => void> = [];
  wake(): void {
    const list = this.resolvers;
    this.resolvers = [];
    for (const r of list) r();
  }
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.resolvers.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

class ReplayRun {
  private readonly started = performance.now();
  private readonly ids = new IdMap();
  private readonly mismatches: Mismatch[] = [];
  private readonly waiters = new Waiters();
  private readonly liveLog: TranscriptEntry[] = [];
  private readonly update: boolean;
  private readonly timeoutMs: number;

  // The recording, indexed.
  private readonly recAgent: RecordedAgent[] = [];
  private readonly recResponses = new Map<string, RecordedAgent>();
  private readonly recRequests = new Map<string, RecordedAgent[]>();
  private readonly recStreams = new Map<string, RecordedAgent[]>();
  private readonly recRaw: RecordedAgent[] = [];
  private readonly recClientResponses = new Map<string, LocatedEntry>();
  private readonly recClientRequestMethods = new Map<string, string>();
  private readonly recAgentRequestMethods = new Map<string, string>();

  // Live state.
  private readonly sentMethods = new Map<string, string>();
  private readonly liveResponses = new Set<string>();
  private readonly liveSessions: string[] = [];
  private readonly liveRequestCount = new Map<string, number>();
  private readonly liveStreamCount = new Map<string, number>();
  private liveRawCount = 0;
  private pendingNotifications: Json[] = [];
  private sent = 0;
  private received = 0;
  private lastTraffic = performance.now();
  private aborted = false;
  private exited = false;
  private exitCode: number | null = null;
  private stderrTail = "";
  private child: ChildProcessWithoutNullStreams | undefined;
  private validator!: AcpValidator;
  private recordedPlaceholders: Placeholders = {};
  private livePlaceholders: Placeholders = {};
  private agentCommand: string[];

  constructor(
    private readonly transcript: Transcript,
    private readonly opts: ReplayOptions,
  ) {
    this.update = opts.update ?? false;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.agentCommand = opts.agentCommand ?? transcript.header.agent.command;
    this.recordedPlaceholders = { ...(transcript.header.paths ?? {}) };
    this.index();
  }

  private now(): number {
    return Math.round((performance.now() - this.started) * 1000) / 1000;
  }

  private index(): void {
    const entries = this.transcript.entries;
    for (const entry of entries) {
      if (entry.type !== "message") continue;
      const kind = kindOf(entry.msg);
      if (kind !== "request") continue;
      const map = entry.dir === "client->agent" ? this.recClientRequestMethods : this.recAgentRequestMethods;
      map.set(idKey(entry.msg.id), String(entry.msg.method));
    }
    entries.forEach((entry, pos) => {
      if (entry.dir === "client->agent") {
        if (entry.type === "message" && kindOf(entry.msg) === "response") this.recClientResponses.set(idKey(entry.msg.id), entry);
        return;
      }
      if (entry.type === "raw") {
        const rec = { entry, pos, matched: false, label: labelOf(entry) };
        this.recAgent.push(rec);
        this.recRaw.push(rec);
        return;
      }
      const msg = entry.msg;
      const kind = kindOf(msg);
      const rec: RecordedAgent = {
        entry,
        pos,
        matched: false,
        label: labelOf(entry, this.recClientRequestMethods.get(idKey(msg.id))),
      };
      this.recAgent.push(rec);
      if (kind === "response") this.recResponses.set(idKey(msg.id), rec);
      else if (kind === "request") push(this.recRequests, String(msg.method), rec);
      else push(this.recStreams, streamKey(String(msg.method), sessionIdOf(msg)), rec);
    });
  }

  private fail(m: Mismatch): void {
    this.mismatches.push(m);
    log.debug({ mismatch: m.summary }, "replay: mismatch");
    if (!this.update || m.kind === "setup" || m.kind === "agent-exit") this.abort();
  }

  private abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    if (this.child && !this.exited) this.child.kill("SIGKILL");
    this.waiters.wake();
  }

  async execute(): Promise<ReplayResult> {
    const header = this.transcript.header;
    const runDir = await mkdtemp(path.join(os.tmpdir(), "acp-replay-"));
    const workspace = path.join(runDir, "workspace");
    const cleanups: Array<() => Promise<void>> = [() => rm(runDir, { recursive: true, force: true, maxRetries: 3 })];
    try {
      await mkdir(workspace, { recursive: true });
      this.livePlaceholders["<CWD>"] = await withRealpath(workspace);
      let env: NodeJS.ProcessEnv = { ...process.env };

      if (header.fakeModel) {
        const fm = await import("../fake-model/index.js");
        const { responses, approvalPolicy, sandboxMode, extraConfig } = header.fakeModel as {
          responses: unknown[];
          approvalPolicy?: unknown;
          sandboxMode?: unknown;
          extraConfig?: unknown;
        };
        // The script may name workspace paths (the file tools want absolute paths): `<CWD>` in it
        // stands for this run's workspace.
        const script = fm.parseFakeModelScript({ responses: placeholdersToPaths(responses, { "<CWD>": workspace }) });
        const model = await fm.startFakeModel(script);
        cleanups.push(() => model.close());
        const homeOpts: Parameters<typeof fm.createCodexHome>[0] = { modelUrl: model.url, dir: path.join(runDir, "codex") };
        if (typeof approvalPolicy === "string") homeOpts.approvalPolicy = approvalPolicy;
        if (typeof sandboxMode === "string") homeOpts.sandboxMode = sandboxMode;
        if (typeof extraConfig === "string") homeOpts.extraConfig = extraConfig;
        const home = await fm.createCodexHome(homeOpts);
        this.livePlaceholders["<CODEX_HOME>"] = await withRealpath(home.codexHome);
        this.livePlaceholders["<HOME>"] = await withRealpath(home.home);
        this.livePlaceholders["<TMP>"] = await withRealpath(home.tmpdir);
        env = { ...env, ...home.env };
      }

      for (const [rel, content] of Object.entries(header.workspace?.files ?? {})) {
        const target = path.resolve(workspace, rel);
        if (!target.startsWith(workspace + path.sep)) throw new Error(`workspace file ${JSON.stringify(rel)} escapes the workspace`);
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, placeholdersToPaths(content, this.livePlaceholders) as string);
      }
      env = { ...env, ...(placeholdersToPaths(header.env ?? {}, this.livePlaceholders) as Record<string, string>), ...this.opts.env };
      const cwd = header.agent.cwd === "<CWD>" ? workspace : process.cwd();

      this.validator = await loadAcpValidator();
      await this.runAgent({ command: this.agentCommand, cwd, env });
    } catch (error) {
      this.fail({ kind: "setup", summary: `cannot run the replay: ${(error as Error).message}` });
    } finally {
      if (this.child && !this.exited) this.child.kill("SIGKILL");
      for (const cleanup of cleanups.reverse()) {
        await cleanup().catch((error: unknown) => log.warn({ err: error }, "replay: cleanup failed"));
      }
    }

    let updated = false;
    if (this.update && this.liveLog.length > 0 && !this.mismatches.some((m) => m.kind === "setup")) {
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
      agentCommand: this.agentCommand,
      agentExitCode: this.exitCode,
      stderrTail: this.stderrTail,
      durationMs: Math.round(performance.now() - this.started),
    };
  }

  private async runAgent(spec: StartAgentSpec): Promise<void> {
    const start =
      this.opts.startAgent ??
      ((s: StartAgentSpec) => {
        const [cmd, ...args] = s.command;
        if (!cmd) throw new Error("empty agent command");
        return spawn(cmd, args, { cwd: s.cwd, env: s.env, stdio: ["pipe", "pipe", "pipe"], shell: false });
      });
    log.debug({ command: spec.command, cwd: spec.cwd }, "replay: starting agent");
    const child = start(spec);
    this.child = child;
    const splitter = new LineSplitter((line) => this.onAgentLine(line));
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
      if (!(await this.waitForAgentBefore(pos, `before sending ${labelOf(entry)} (recording line ${entry.line})`))) break;
      this.sendRecorded(entry);
    }
    if (!this.aborted) await this.waitForAgentBefore(entries.length, "at the end of the recording");
    if (!this.aborted) {
      await this.quiet(SETTLE_MS);
      child.stdin.end();
      const exitTimeout = this.opts.exitTimeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS;
      const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), exitTimeout).unref());
      const inTime = await Promise.race([exited.then(() => true), timer]);
      if (!inTime) {
        this.fail({ kind: "agent-exit", summary: `agent still running ${exitTimeout / 1000} s after its stdin was closed` });
      }
    }
    if (this.child && !this.exited) child.kill("SIGKILL");
    await exited;

    if (!this.aborted) {
      for (const msg of this.pendingNotifications) {
        this.fail({ kind: "unexpected", summary: `unexpected agent->client notification ${String(msg.method)} for unknown session ${show(sessionIdOf(msg))}`, actual: msg });
      }
      const missing = this.recAgent.filter((r) => !r.matched);
      const first = missing[0];
      if (first) {
        this.fail({
          kind: "missing",
          line: first.entry.line,
          summary: `missing ${first.label} (recording line ${first.entry.line})${missing.length > 1 ? ` and ${missing.length - 1} more` : ""}`,
          expected: first.entry.type === "message" ? first.entry.msg : first.entry.text,
        });
      }
    }
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
  private async waitForAgentBefore(pos: number, context: string): Promise<boolean> {
    const before = this.recAgent.filter((r) => r.pos < pos);
    const outstanding = (): RecordedAgent | undefined =>
      this.update
        ? before.find((r) => r.entry.type === "message" && kindOf(r.entry.msg) === "response" && !this.liveResponses.has(idKey(r.entry.msg.id)))
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
      await this.waiters.next(left);
    }
    if (this.update) await this.quiet(SETTLE_MS);
    return !this.aborted;
  }

  /**
   * Binds recorded <-> live session ids from a session/new (load, resume) response even when the
   * comparison stopped before reaching them (update mode), and remembers the live session.
   */
  private learnSession(recorded: LocatedEntry, live: Json): void {
    const liveId = (live.result as Json | undefined)?.sessionId;
    if (typeof liveId !== "string") return;
    if (!this.liveSessions.includes(liveId)) this.liveSessions.push(liveId);
    const recId = recorded.type === "message" ? (recorded.msg.result as Json | undefined)?.sessionId : undefined;
    if (typeof recId === "string") this.ids.check("sessionId", recId, liveId);
  }

  /** A recorded client message made live: recorded paths -> placeholders -> this run's paths; recorded ids -> live ids. */
  private toLive(value: unknown): unknown {
    const portable = pathsToPlaceholders(value, this.recordedPlaceholders);
    // A hand-written transcript may name a session id its recorded responses never gave: it
    // stands for the newest live session that has no recorded counterpart yet.
    const sid = (portable as Json | undefined)?.params && ((portable as Json).params as Json).sessionId;
    if (typeof sid === "string" && this.ids.toLive("sessionId", sid) === undefined) {
      const unbound = [...this.liveSessions].reverse().find((l) => this.ids.toRecorded("sessionId", l) === undefined);
      if (unbound !== undefined) this.ids.check("sessionId", sid, unbound);
    }
    return this.ids.recordedToLive(placeholdersToPaths(portable, this.livePlaceholders));
  }

  private write(entry: TranscriptEntry, line: string): void {
    this.liveLog.push({ ...entry, t: this.now() });
    this.sent++;
    if (this.exited || !this.child) return;
    this.child.stdin.write(`${line}\n`);
  }

  private sendRecorded(entry: LocatedEntry): void {
    if (entry.type === "raw") {
      const text = this.toLive(entry.text) as string;
      this.write({ type: "raw", dir: "client->agent", t: 0, text }, text);
      return;
    }
    const msg = this.toLive(entry.msg) as Json;
    const kind = kindOf(msg);
    this.checkSchema("client->agent", msg, undefined, entry.line);
    if (kind === "request") this.sentMethods.set(idKey(msg.id), String(msg.method));
    this.write({ type: "message", dir: "client->agent", t: 0, msg }, JSON.stringify(msg));
  }

  private checkSchema(dir: "client->agent" | "agent->client", msg: Json, method: string | undefined, line?: number): void {
    const violations = this.validator.validate(dir, msg, method);
    if (violations.length === 0) return;
    const entry: TranscriptEntry = { type: "message", dir, t: 0, msg };
    const first = violations[0]!;
    this.fail({
      kind: "schema",
      ...(line !== undefined ? { line } : {}),
      path: first.path,
      summary: `${labelOf(entry, method)}${line !== undefined ? ` (recording line ${line})` : ""} violates the ACP schema at ${first.path}: ${first.message}`,
      detail: [...violations.map((v) => `${v.path}: ${v.message}`), `message: ${show(msg, 2000)}`].join("\n"),
    });
  }

  private compare(rec: RecordedAgent, live: Json, kind: Kind): void {
    rec.matched = true;
    if (rec.entry.type !== "message") return;
    const expected = normaliseMessage(rec.entry.msg, this.recordedPlaceholders);
    const actual = normaliseMessage(live, this.livePlaceholders);
    const diff = compareMessages(expected, actual, this.ids, kind === "request" ? { topLevelIdCategory: JSONRPC_ID } : {});
    if (!diff) return;
    this.fail({
      kind: "difference",
      line: rec.entry.line,
      path: diff.path,
      expected: diff.expected,
      actual: diff.actual,
      summary: `${rec.label} (recording line ${rec.entry.line}) differs at ${diff.path}${diff.reason ? ` (${diff.reason})` : ""}`,
      detail: [
        `at ${diff.path}${diff.reason ? ` (${diff.reason})` : ""}`,
        `  expected: ${show(diff.expected)}`,
        `  actual:   ${show(diff.actual)}`,
        `expected message (normalised): ${show(expected, 2000)}`,
        `actual message (normalised):   ${show(actual, 2000)}`,
      ].join("\n"),
    });
  }

  private onAgentLine(line: string): void {
    const entry = entryForLine("agent->client", this.now(), line);
    if (!entry) return;
    this.received++;
    this.lastTraffic = performance.now();
    this.liveLog.push(entry);
    try {
      if (!this.aborted) this.onAgentEntry(entry);
    } finally {
      this.waiters.wake();
    }
  }

  private onAgentEntry(entry: TranscriptEntry): void {
    if (entry.type === "raw") {
      const rec = this.recRaw[this.liveRawCount++];
      if (!rec) {
        this.fail({ kind: "unexpected", summary: `unexpected non-JSON line from the agent: ${show(entry.text)}`, actual: entry.text });
        return;
      }
      rec.matched = true;
      const expected = pathsToPlaceholders((rec.entry as { text: string }).text, this.recordedPlaceholders);
      const actual = pathsToPlaceholders(entry.text, this.livePlaceholders);
      if (expected !== actual) {
        this.fail({
          kind: "difference",
          line: rec.entry.line,
          path: "$",
          expected,
          actual,
          summary: `${rec.label} (recording line ${rec.entry.line}) differs`,
          detail: `  expected: ${show(expected)}\n  actual:   ${show(actual)}`,
        });
      }
      return;
    }
    const msg = entry.msg;
    const kind = kindOf(msg);
    if (kind === "response") {
      const key = idKey(msg.id);
      const method = this.sentMethods.get(key);
      this.checkSchema("agent->client", msg, method);
      if (this.aborted) return;
      const rec = this.recResponses.get(key);
      if (!rec || rec.matched) {
        this.fail({ kind: "unexpected", summary: `unexpected ${labelOf(entry, method)}`, actual: msg, detail: `message: ${show(msg, 2000)}` });
        return;
      }
      this.liveResponses.add(key);
      this.compare(rec, msg, kind);
      this.learnSession(rec.entry, msg);
      this.retryPending(); // a session/new response teaches the live session id
      return;
    }
    this.checkSchema("agent->client", msg, undefined);
    if (this.aborted) return;
    if (kind === "request") {
      this.onAgentRequest(entry, msg);
      return;
    }
    this.onAgentNotification(msg);
  }

  private onAgentRequest(entry: TranscriptEntry, msg: Json): void {
    const method = String(msg.method);
    const k = this.liveRequestCount.get(method) ?? 0;
    this.liveRequestCount.set(method, k + 1);
    const rec = this.recRequests.get(method)?.[k];
    if (!rec) {
      this.fail({ kind: "unexpected", summary: `unexpected ${labelOf(entry)} (the recording has ${k} of them)`, actual: msg, detail: `message: ${show(msg, 2000)}` });
      if (!this.aborted) {
        const reply = { jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: "replay: this request is not in the transcript" } };
        this.write({ type: "message", dir: "client->agent", t: 0, msg: reply }, JSON.stringify(reply));
      }
      return;
    }
    this.compare(rec, msg, "request");
    if (this.aborted || rec.entry.type !== "message") return;
    const recorded = this.recClientResponses.get(idKey(rec.entry.msg.id));
    if (!recorded || recorded.type !== "message") {
      log.debug({ method }, "replay: the recording never answered this request; leaving it unanswered");
      return;
    }
    const reply = { ...(this.toLive(recorded.msg) as Json), id: msg.id };
    this.checkSchema("client->agent", reply, method, recorded.line);
    if (this.aborted) return;
    this.write({ type: "message", dir: "client->agent", t: 0, msg: reply }, JSON.stringify(reply));
  }

  private onAgentNotification(msg: Json): void {
    const method = String(msg.method);
    const liveSession = sessionIdOf(msg);
    let recordedSession: unknown = liveSession;
    if (typeof liveSession === "string" || typeof liveSession === "number") {
      recordedSession = this.ids.toRecorded("sessionId", liveSession);
      if (recordedSession === undefined) {
        // The session's id is learnt from the session/new response; hold until then.
        this.pendingNotifications.push(msg);
        return;
      }
    }
    const key = streamKey(method, recordedSession);
    const k = this.liveStreamCount.get(key) ?? 0;
    this.liveStreamCount.set(key, k + 1);
    const rec = this.recStreams.get(key)?.[k];
    if (!rec) {
      const entry: TranscriptEntry = { type: "message", dir: "agent->client", t: 0, msg };
      this.fail({
        kind: "unexpected",
        summary: `unexpected ${labelOf(entry)}: the recording has only ${k} ${method} notification(s) for this session`,
        actual: msg,
        detail: `message: ${show(normaliseMessage(msg, this.livePlaceholders), 2000)}`,
      });
      return;
    }
    this.compare(rec, msg, "notification");
    this.retryPending();
  }

  private retryPending(): void {
    if (this.pendingNotifications.length === 0) return;
    const pending = this.pendingNotifications;
    this.pendingNotifications = [];
    for (const msg of pending) {
      if (this.aborted) return;
      this.onAgentNotification(msg);
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
    await writeFile(this.transcript.file, serializeTranscript(header, entries));
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function streamKey(method: string, sessionId: unknown): string {
  return `${method} ${JSON.stringify(sessionId ?? null)}`;
}

async function withRealpath(p: string): Promise<string[]> {
  const real = await realpath(p).catch(() => p);
  return real === p ? [p] : [p, real];
}

/** Replays one transcript file. Throws TranscriptFormatError for a malformed file. */
export async function replayTranscript(file: string, opts: ReplayOptions = {}): Promise<ReplayResult> {
  const text = await readFile(file, "utf8");
  const transcript = parseTranscript(text, file);
  return new ReplayRun(transcript, opts).execute();
}

/** A human-readable report of one replay (PASS/FAIL line, then the first problem in full). */
export function formatReplayReport(result: ReplayResult): string {
  const secs = (result.durationMs / 1000).toFixed(1);
  if (result.ok) {
    const what = result.updated ? "UPDATED" : "PASS";
    return `${what} ${result.file} (${result.sent} sent, ${result.received} received, ${secs} s)\n`;
  }
  const lines = [`FAIL ${result.file} (agent: ${result.agentCommand.join(" ")}, ${secs} s)`];
  const [first, ...rest] = result.mismatches;
  if (first) {
    lines.push(`  ${first.summary}`);
    if (first.detail) lines.push(...first.detail.split("\n").map((l) => `    ${l}`));
    else if (first.expected !== undefined || first.actual !== undefined) {
      lines.push(`    expected: ${show(first.expected)}`, `    actual:   ${show(first.actual)}`);
    }
  }
  if (rest.length > 0) {
    lines.push(`  ${rest.length} more problem(s):`);
    for (const m of rest.slice(0, 5)) lines.push(`    - ${m.summary}`);
  }
  if (result.stderrTail.trim() !== "") {
    const tail = result.stderrTail.trimEnd().split("\n").slice(-10);
    lines.push("  agent stderr (last lines):", ...tail.map((l) => `    | ${l}`));
  }
  return `${lines.join("\n")}\n`;
}
