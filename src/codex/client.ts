// JSON-RPC client for one `codex app-server` child: request ids, incoming messages checked (the
// envelope by zod, what the adapter reads by validators generated from Codex's JSON schema:
// validation.ts), per-thread routing of notifications and server->client requests, and a clean
// failure of every pending call when the child exits.
import type { ChildProcess } from "node:child_process";
import type { Logger } from "../log/index.js";
import type { CodexCommand } from "./locate.js";
import { spawnAppServer } from "./spawn.js";
import { incomingMessageSchema, threadIdOf } from "./schemas.js";
import type { z } from "zod";
import { LineSplitter } from "../streams/index.js";
import { processStopper, type ProcessStopper } from "../platform/index.js";
import type { ThreadListener } from "./messages.js";
import { refusalFor, type CodexMethod, type CodexRequests } from "./requests.js";
import { describeIssue, parseOrThrow, readNotification, readResult, readServerRequest, type ValidationIssue } from "./validation.js";
import { CodexExitedError, CodexMethodUnsupportedError, CodexRpcError, unknownMethodOf, type ExitInfo } from "./errors.js";
import { ServerRequestsInFlight } from "./server-requests.js";
import { jsonLineForCodex } from "./json.js";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../config/index.js";
import { JsonRpcCode } from "../json-rpc/index.js";

const STDERR_TAIL_LINES = 20;
type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string; timer?: NodeJS.Timeout; bytes: number };

/** How long codex may take to answer, per method (ms); the rest use the default (DEFAULT_REQUEST_TIMEOUT_MS). Generous on purpose. */
const DEADLINES_MS: Readonly<Record<string, number>> = { "turn/interrupt": 10_000 };

export class AppServerClient {
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private readonly threads = new Map<string, ThreadListener>();
  /** Codex's requests being answered, withdrawn when Codex settles one elsewhere. */
  private readonly inFlight = new ServerRequestsInFlight();
  private readonly globalListeners = new Set<(method: string, params: unknown) => void>();
  /** Methods already reported as unreadable or unknown (once each: a stream of bad deltas is one line). */
  private readonly reported = new Set<string>();
  /** Methods this codex answered as unknown (a codex of another version), and its version, which errors name. */
  private readonly lacking = new Set<string>();
  codexVersion: string | undefined;
  private nextId = 1;
  private exitInfo: ExitInfo | undefined;
  private lastOutputAt = Date.now();
  private outputHeld = false;
  /** Why we killed the child ourselves (it stopped answering), for the exit reason. */
  private killReason: string | undefined;
  private readonly deadlineMs: number;
  /** Whether codex's messages are logged (trace level), asked once: pino's check per streamed delta showed in profiles. */
  private readonly traceMessages: boolean;
  /** How codex is stopped on this host (on Windows: its whole process tree). */
  private readonly stop: ProcessStopper;
  /** The last lines codex printed on stderr (for a start-up failure's message). */
  private readonly stderrLines: string[] = [];
  private readonly stderrDone: Promise<void>;
  private readonly stdoutLines = new LineSplitter((line) => {
    if (line.trim()) this.onLine(line);
  });

  /** Wraps an already spawned app-server child, or spawns one from `command`. */
  constructor(
    source: CodexCommand | ChildProcess,
    private readonly log: Logger,
    opts: { args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string; deadlineMs?: number; stop?: ProcessStopper } = {},
  ) {
    this.deadlineMs = opts.deadlineMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.traceMessages = log.isLevelEnabled("trace");
    this.stop = opts.stop ?? processStopper();
    this.child = "file" in source ? spawnAppServer(source, opts) : source;
    this.log.debug({ codexPid: this.child.pid }, "codex app-server started");
    // Bytes, not text: the pieces of a long line (a page of history is megabytes) wait off the
    // JS heap until the line is complete, instead of being promoted to its old space.
    this.child.stdout?.on("data", (chunk: Buffer) => {
      this.lastOutputAt = Date.now();
      this.stdoutLines.push(chunk);
    });
    this.child.stderr?.setEncoding("utf8");
    const stderrLines = new LineSplitter((line) => {
      const text = line.trim();
      if (!text) return;
      this.log.debug({ codexStderr: text }, "codex stderr");
      // Kept for a start-up failure's message; backtrace frames say nothing to a user.
      if (!/^\d+: |^Stack backtrace:$/.test(text)) {
        this.stderrLines.push(text.slice(0, 500));
        if (this.stderrLines.length > STDERR_TAIL_LINES) this.stderrLines.shift();
      }
    });
    this.child.stderr?.on("data", (chunk: string) => stderrLines.push(chunk));
    this.stderrDone = new Promise((resolve) => {
      if (!this.child.stderr) resolve();
      else this.child.stderr.once("close", () => resolve());
    });
    // A write after the child died, or a broken pipe either way, must not crash the adapter (a
    // stream error with no listener is thrown); the child's exit is what ends the client.
    this.child.stdin?.on("error", (err) => this.log.debug({ err: err.message }, "codex stdin error"));
    this.child.stdout?.on("error", (err) => this.log.warn({ err: err.message }, "codex stdout error"));
    this.child.stderr?.on("error", (err) => this.log.warn({ err: err.message }, "codex stderr error"));
    this.exited = new Promise<ExitInfo>((resolve) => {
      let settled = false;
      const finish = (info: ExitInfo) => {
        if (settled) return;
        settled = true;
        this.onExit(info);
        resolve(info);
      };
      this.child.once("error", (err) => finish({ code: null, signal: null, reason: `codex could not be started: ${err.message}` }));
      this.child.once("exit", (code, signal) => finish({ code, signal, reason: this.killReason ?? (signal ? `killed by ${signal}` : `exit code ${code}`) }));
      // Already gone before we listened (e.g. a pre-spawned child that failed at once).
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        finish({ code: this.child.exitCode, signal: this.child.signalCode, reason: "exited before start-up" });
      }
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  /** A request by name; its result is unknown, or what `schema` reads of it. Codex's typed requests go through call(). */
  request(method: string, params: unknown, schema?: undefined, timeoutMs?: number): Promise<unknown>;
  request<S extends z.ZodType>(method: string, params: unknown, schema: S, timeoutMs?: number): Promise<z.output<S>>;
  request(method: string, params: unknown, schema?: z.ZodType, timeoutMs?: number): Promise<unknown> {
    if (this.exitInfo) return Promise.reject(new CodexExitedError(this.exitInfo));
    if (this.lacking.has(method)) return Promise.reject(new CodexMethodUnsupportedError(method, this.codexVersion));
    const id = this.nextId++;
    const line = `${jsonLineForCodex({ id, method, params })}\n`;
    const answer = this.awaitAnswer(id, method, timeoutMs ?? this.deadlineOf(method), line.length);
    this.child.stdin?.write(line);
    return answer.then((result) => (schema ? parseOrThrow(schema, result, method) : result));
  }

  private deadlineOf(method: string): number {
    return Math.min(DEADLINES_MS[method] ?? this.deadlineMs, this.deadlineMs);
  }

  /** The answer to request `id`, or a rejection when it is past `deadline` ms. */
  private awaitAnswer(id: number, method: string, deadline: number, bytes = 0): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new CodexRpcError(`codex did not answer ${method} within ${Math.round(deadline / 1000)} s`, JsonRpcCode.InternalError));
      }, deadline);
      timer.unref();
      this.pending.set(id, { resolve, reject, method, timer, bytes });
    });
  }

  /** The answer to a request written to this child before the client existed (the bin's early `initialize`, spawn.ts); ids below 1 only. */
  adopt(id: number, method: string): Promise<unknown> {
    if (id >= 1 || this.pending.has(id)) return Promise.reject(new Error(`cannot adopt request ${id}: the client numbers its own from 1`));
    return this.exitInfo ? Promise.reject(new CodexExitedError(this.exitInfo)) : this.awaitAnswer(id, method, this.deadlineOf(method));
  }

  /** What codex printed last on stderr, once its stderr closed (or after `waitMs`). */
  async stderrTail(waitMs = 200): Promise<readonly string[]> {
    await Promise.race([this.stderrDone, new Promise((r) => setTimeout(r, waitMs).unref())]);
    return [...this.stderrLines];
  }

  /** Requests still waiting for codex's answer. */
  /** Whether this codex answered `method` as unknown (then every later call of it fails at once). */
  lacks = (method: string): boolean => this.lacking.has(method);

  get pendingCount(): number {
    return this.pending.size;
  }

  /** The size of the requests still waiting for codex's answer (the work it was sent; UTF-16 units, about bytes). */
  get pendingBytes(): number {
    return [...this.pending.values()].reduce((sum, p) => sum + p.bytes, 0);
  }

  /** How long codex has printed nothing (0 while its output is held: then it is not being read). */
  get silentForMs(): number {
    return this.outputHeld ? 0 : Date.now() - this.lastOutputAt;
  }

  /**
   * Stops (or resumes) reading codex's output, while the ACP client reads ours too slowly: codex
   * then waits on its own pipe, instead of everything it says piling up here.
   */
  holdOutput(held: boolean): void {
    if (held === this.outputHeld) return;
    this.outputHeld = held;
    if (held) this.child.stdout?.pause();
    else {
      this.lastOutputAt = Date.now();
      this.child.stdout?.resume();
    }
  }

  /**
   * A typed request (src/codex/requests.ts): its result is checked by the validator generated for
   * it from Codex's schema, and fails the call (CodexRpcError) when it breaks it. With `schema`, a
   * zod schema that narrows further (a status it must be, a value read as unknown), the result is
   * what that schema reads.
   */
  call<M extends CodexMethod>(method: M, params: CodexRequests[M]["params"]): Promise<CodexRequests[M]["result"]>;
  call<M extends CodexMethod, S extends z.ZodType>(method: M, params: CodexRequests[M]["params"], schema: S): Promise<z.output<S>>;
  async call<M extends CodexMethod>(method: M, params: CodexRequests[M]["params"], schema?: z.ZodType): Promise<unknown> {
    const result = this.checked(method, await this.request(method, params));
    return schema ? parseOrThrow(schema, result, method) : result;
  }

  /** adopt() for a typed request (the bin's early `config/read`): its result checked as call() checks one. */
  async adoptCall<M extends CodexMethod>(id: number, method: M): Promise<CodexRequests[M]["result"]> {
    return this.checked(method, await this.adopt(id, method));
  }

  /** A result as Codex's schema describes it, or a CodexRpcError saying where it breaks it. */
  private checked<M extends CodexMethod>(method: M, result: unknown): CodexRequests[M]["result"] {
    const read = readResult(method, result);
    if (read.kind === "invalid") {
      this.log.warn({ method, path: read.issue.path, issue: read.issue.message }, "codex answered with a result Codex's schema does not describe");
      throw new CodexRpcError(`codex app-server answered ${method} with an unexpected shape: ${describeIssue(read.issue)}`, JsonRpcCode.InternalError);
    }
    return read.value;
  }

  notify(method: string, params?: unknown): void {
    if (this.exitInfo) return;
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Whether something listens to the thread (a session open on it). */
  hasThread(threadId: string): boolean {
    return this.threads.has(threadId);
  }

  /** Routes notifications and server requests carrying this thread id to `listener`. */
  attachThread(threadId: string, listener: ThreadListener): () => void {
    this.threads.set(threadId, listener);
    return () => {
      if (this.threads.get(threadId) === listener) this.threads.delete(threadId);
    };
  }

  /** Sees every notification (including thread-scoped ones), e.g. for logging or global state. */
  onNotification(listener: (method: string, params: unknown) => void): () => void {
    this.globalListeners.add(listener);
    return () => this.globalListeners.delete(listener);
  }

  /** Kills the child; `reason` becomes the exit's reason (what users are told). */
  kill(signal: NodeJS.Signals = "SIGTERM", reason?: string): void {
    if (!this.alive) return;
    if (reason) this.killReason = reason;
    this.stop(this.child, signal);
  }

  /** Closes stdin (app-server exits on EOF) and kills it if it lingers. */
  async close(graceMs = 1500): Promise<void> {
    if (!this.alive) return;
    this.child.stdin?.end();
    const timer = setTimeout(() => this.kill("SIGKILL"), graceMs);
    timer.unref();
    await this.exited;
    clearTimeout(timer);
  }

  private write(message: unknown): void {
    this.child.stdin?.write(`${jsonLineForCodex(message)}\n`);
  }

  private onLine(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.log.warn({ length: line.length }, "codex app-server printed a line that is not JSON; ignored");
      return;
    }
    const parsed = incomingMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.log.warn({ issues: parsed.error.issues.slice(0, 3) }, "codex app-server sent an invalid JSON-RPC message; ignored");
      return;
    }
    if (parsed.kind === "request") return this.onServerRequest(parsed.data.id, parsed.data.method, parsed.data.params ?? {});
    if (parsed.kind === "notification") return this.onServerNotification(parsed.data.method, parsed.data.params ?? {});
    const { id } = parsed.data;
    const pending = typeof id === "number" ? this.pending.get(id) : undefined;
    if (typeof id !== "number" || !pending) {
      this.log.warn({ id }, "response to an unknown request id; ignored");
      return;
    }
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (parsed.kind !== "error") return pending.resolve(parsed.data.result);
    const err = parsed.data.error;
    if (unknownMethodOf(err) === pending.method) {
      this.lacking.add(pending.method);
      this.log.info({ method: pending.method, codexVersion: this.codexVersion }, "this codex does not offer a method the adapter uses; what needs it is unavailable");
      pending.reject(new CodexMethodUnsupportedError(pending.method, this.codexVersion));
    } else pending.reject(new CodexRpcError(err.message, err.code, err.data));
  }

  private onServerNotification(method: string, params: unknown): void {
    // Payloads may hold file contents: trace level only.
    if (this.traceMessages) this.log.trace({ method, params }, "codex notification");
    const read = readNotification(method, params);
    // One the adapter cannot read is handed on to no one: a listener would trip over it, or
    // worse, act on half of it.
    if (read.kind === "invalid") return this.reportUnreadable(method, read.issue);
    // try/catch in place (no closure per listener): every streamed delta passes here.
    for (const listener of this.globalListeners) {
      try {
        listener(method, params);
      } catch (err) {
        this.listenerFailed(method, err);
      }
    }
    if (read.kind === "unknown") {
      this.reportOnce(method, () => this.log.info({ method }, "codex sent a notification this version does not know; not shown"));
      return;
    }
    if (method === "serverRequest/resolved") this.inFlight.resolved(params);
    const threadId = threadIdOf(params);
    const thread = threadId === undefined ? undefined : this.threads.get(threadId);
    if (!thread) return;
    try {
      thread.notification(read.value);
    } catch (err) {
      this.listenerFailed(method, err);
    }
  }

  /** Once per method: which field broke Codex's schema and how, never the payload (it may hold file contents). */
  private reportUnreadable(method: string, issue: ValidationIssue): void {
    this.reportOnce(method, () =>
      this.log.warn({ method, path: issue.path, issue: issue.message }, "codex sent a message Codex's schema does not describe; ignored (further ones of this method are not logged)"),
    );
  }

  private reportOnce(method: string, report: () => void): void {
    if (this.reported.has(method)) return;
    this.reported.add(method);
    report();
  }

  /** A listener that throws on an unexpected message must not take the adapter down: logged, skipped. */
  private listenerFailed(method: string, err: unknown): void {
    this.log.error({ method, err: err instanceof Error ? err.message : String(err) }, "handling a codex notification failed; skipped");
  }

  private onServerRequest(id: number | string, method: string, params: unknown): void {
    if (this.traceMessages) this.log.trace({ method, params }, "codex request");
    const read = readServerRequest(method, params);
    if (read.kind !== "read") {
      // Answered at once: Codex would otherwise wait on it (a turn held until it times out).
      if (read.kind === "invalid") this.reportUnreadable(method, read.issue);
      else this.reportOnce(method, () => this.log.warn({ method }, "codex sent a request this version does not know; refused"));
      const error = read.kind === "invalid" ? { code: JsonRpcCode.InvalidParams, message: `codex-cli-acp cannot read this ${method}: ${describeIssue(read.issue)}` } : { code: JsonRpcCode.MethodNotFound, message: `codex-cli-acp does not know ${method}` };
      this.write({ id, error });
      return;
    }
    const request = read.value;
    const threadId = threadIdOf(params);
    const listener = threadId === undefined ? undefined : this.threads.get(threadId);
    if (!listener) {
      // Not about a session (the clock, an auth refresh): a refusal in Codex's shape, or an error.
      const refusal = refusalFor(request);
      this.log.warn({ method }, "codex request for no known thread; declined");
      if (refusal !== undefined) this.write({ id, result: refusal });
      else this.write({ id, error: { code: JsonRpcCode.MethodNotFound, message: `codex-cli-acp cannot answer ${method} here` } });
      return;
    }
    const answering = this.inFlight.begin(id);
    listener.request(request, answering.signal).then(
      (result) => this.write({ id, result }),
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        this.log.warn({ method, err: message }, "answering a codex request failed");
        this.write({ id, error: { code: JsonRpcCode.InternalError, message } });
      },
    ).finally(answering.done);
  }

  private onExit(info: ExitInfo): void {
    this.exitInfo = info;
    const err = new CodexExitedError(info);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    this.log.info({ reason: info.reason }, "codex app-server exited");
  }
}
