// JSON-RPC client for one `codex app-server` child (the process: host/child.ts): request ids and
// deadlines, incoming messages checked (the envelope by zod, what the adapter reads by validators
// generated from Codex's JSON schema: validation.ts), answers matched to their requests,
// notifications and server->client requests routed per thread (routing.ts), and a clean failure
// of every pending call when the child exits.
import type { ChildProcess } from "node:child_process";
import type { Logger } from "../log/index.js";
import type { CodexCommand } from "./locate.js";
import { incomingMessageSchema } from "./schemas.js";
import type { z } from "zod";
import type { ProcessStopper } from "../platform/index.js";
import { CodexChild } from "./host/child.js";
import type { CodexMethod, CodexRequests } from "./requests.js";
import { describeIssue, parseOrThrow, readResult } from "./validation.js";
import {
  CodexExitedError,
  CodexMethodUnsupportedError,
  CodexRpcError,
  unknownMethodOf,
  type ExitInfo,
} from "./errors.js";
import { IncomingRouter, type ThreadListener } from "./routing.js";
import { jsonLineForCodex } from "./json.js";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../config/index.js";
import { JsonRpcCode } from "../json-rpc/index.js";

export type { ThreadListener } from "./routing.js";

type Pending = {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  method: string;
  timer?: NodeJS.Timeout;
  bytes: number;
};

/** How long codex may take to answer, per method (ms); the rest use the default (DEFAULT_REQUEST_TIMEOUT_MS). Generous on purpose. */
const DEADLINES_MS: Readonly<Record<string, number>> = { "turn/interrupt": 10_000 };

export class AppServerClient {
  readonly exited: Promise<ExitInfo>;
  private readonly child: CodexChild;
  private readonly pending = new Map<number, Pending>();
  /** Where notifications and server->client requests go (routing.ts). */
  private readonly router: IncomingRouter;
  private nextId = 1;
  private readonly deadlineMs: number;
  /** Methods this codex answered as unknown (a codex of another version): not asked again. */
  private readonly lacking = new Set<string>();
  /** Codex's version (from its initialize answer), which the errors of a method it lacks name. */
  codexVersion: string | undefined;

  /** Wraps an already spawned app-server child, or spawns one from `command`. */
  constructor(
    source: CodexCommand | ChildProcess,
    private readonly log: Logger,
    opts: { args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string; deadlineMs?: number; stop?: ProcessStopper } = {},
  ) {
    this.deadlineMs = opts.deadlineMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.router = new IncomingRouter(log, (message) => this.write(message));
    this.child = new CodexChild(source, log, opts, {
      line: (line) => this.onLine(line),
      exit: (info) => this.onExit(info),
    });
    this.exited = this.child.exited;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether this codex answered `method` as unknown (then every later call of it fails at once). */
  lacks(method: string): boolean {
    return this.lacking.has(method);
  }

  get alive(): boolean {
    return this.child.exit === undefined;
  }

  /** A request by name; its result is unknown, or what `schema` reads of it. Codex's typed requests go through call(). */
  request(method: string, params: unknown, schema?: undefined, timeoutMs?: number): Promise<unknown>;
  request<S extends z.ZodType>(method: string, params: unknown, schema: S, timeoutMs?: number): Promise<z.output<S>>;
  request(method: string, params: unknown, schema?: z.ZodType, timeoutMs?: number): Promise<unknown> {
    const exit = this.child.exit;
    if (exit) return Promise.reject(new CodexExitedError(exit));
    if (this.lacking.has(method)) return Promise.reject(new CodexMethodUnsupportedError(method, this.codexVersion));
    const id = this.nextId++;
    const line = `${jsonLineForCodex({ id, method, params })}\n`;
    const answer = this.awaitAnswer(id, method, timeoutMs ?? this.deadlineOf(method), line.length);
    this.child.write(line);
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
        reject(
          new CodexRpcError(
            `codex did not answer ${method} within ${Math.round(deadline / 1000)} s`,
            JsonRpcCode.InternalError,
          ),
        );
      }, deadline);
      timer.unref();
      this.pending.set(id, { resolve, reject, method, timer, bytes });
    });
  }

  /** The answer to a request written to this child before the client existed (the bin's early `initialize`, spawn.ts); ids below 1 only. */
  adopt(id: number, method: string): Promise<unknown> {
    if (id >= 1 || this.pending.has(id))
      return Promise.reject(new Error(`cannot adopt request ${id}: the client numbers its own from 1`));
    const exit = this.child.exit;
    return exit ? Promise.reject(new CodexExitedError(exit)) : this.awaitAnswer(id, method, this.deadlineOf(method));
  }

  /** What codex printed last on stderr, once its stderr closed (or after `waitMs`). */
  stderrTail(waitMs = 200): Promise<readonly string[]> {
    return this.child.stderrTail(waitMs);
  }

  /** Requests still waiting for codex's answer. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** The size of the requests still waiting for codex's answer (the work it was sent; UTF-16 units, about bytes). */
  get pendingBytes(): number {
    return [...this.pending.values()].reduce((sum, p) => sum + p.bytes, 0);
  }

  /** How long codex has printed nothing (0 while its output is held: then it is not being read). */
  get silentForMs(): number {
    return this.child.silentForMs;
  }

  /** Stops (or resumes) reading codex's output, while the ACP client reads ours too slowly (child.ts). */
  holdOutput(held: boolean): void {
    this.child.holdOutput(held);
  }

  /**
   * A typed request (src/codex/requests.ts): its result is checked by the validator generated for
   * it from Codex's schema, and fails the call (CodexRpcError) when it breaks it. With `schema`, a
   * zod schema that narrows further (a status it must be, a value read as unknown), the result is
   * what that schema reads.
   */
  call<M extends CodexMethod>(method: M, params: CodexRequests[M]["params"]): Promise<CodexRequests[M]["result"]>;
  call<M extends CodexMethod, S extends z.ZodType>(
    method: M,
    params: CodexRequests[M]["params"],
    schema: S,
  ): Promise<z.output<S>>;
  async call<M extends CodexMethod>(
    method: M,
    params: CodexRequests[M]["params"],
    schema?: z.ZodType,
  ): Promise<unknown> {
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
      this.log.warn(
        { method, path: read.issue.path, issue: read.issue.message },
        "codex answered with a result Codex's schema does not describe",
      );
      throw new CodexRpcError(
        `codex app-server answered ${method} with an unexpected shape: ${describeIssue(read.issue)}`,
        JsonRpcCode.InternalError,
      );
    }
    return read.value;
  }

  notify(method: string, params?: unknown): void {
    if (this.child.exit) return;
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Whether something listens to the thread (a session open on it). */
  hasThread(threadId: string): boolean {
    return this.router.hasThread(threadId);
  }

  /** Routes notifications and server requests carrying this thread id to `listener`. */
  attachThread(threadId: string, listener: ThreadListener): () => void {
    return this.router.attachThread(threadId, listener);
  }

  /** Sees every notification (including thread-scoped ones), e.g. for logging or global state. */
  onNotification(listener: (method: string, params: unknown) => void): () => void {
    return this.router.onNotification(listener);
  }

  /** Kills the child; `reason` becomes the exit's reason (what users are told). */
  kill(signal: NodeJS.Signals = "SIGTERM", reason?: string): void {
    this.child.kill(signal, reason);
  }

  /** Closes stdin (app-server exits on EOF) and kills it if it lingers. */
  close(graceMs = 1500): Promise<void> {
    return this.child.close(graceMs);
  }

  private write(message: unknown): void {
    this.child.write(`${jsonLineForCodex(message)}\n`);
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
      this.log.warn(
        { issues: parsed.error.issues.slice(0, 3) },
        "codex app-server sent an invalid JSON-RPC message; ignored",
      );
      return;
    }
    if (parsed.kind === "request")
      return this.router.request(parsed.data.id, parsed.data.method, parsed.data.params ?? {});
    if (parsed.kind === "notification") return this.router.notification(parsed.data.method, parsed.data.params ?? {});
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
      this.log.info(
        { method: pending.method, codexVersion: this.codexVersion },
        "this codex does not offer a method the adapter uses; what needs it is unavailable",
      );
      pending.reject(new CodexMethodUnsupportedError(pending.method, this.codexVersion));
    } else pending.reject(new CodexRpcError(err.message, err.code, err.data));
  }

  private onExit(info: ExitInfo): void {
    const err = new CodexExitedError(info);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    this.log.info({ reason: info.reason }, "codex app-server exited");
  }
}
