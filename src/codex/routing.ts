// Where what codex app-server says unasked goes: each notification to the listeners of every
// message and, once checked, to its thread's listener; each server->client request to its
// thread's listener, its answer written back (withdrawn if Codex settles it elsewhere), or refused
// at once in Codex's shape. What it cannot read is reported once per method, never its payload.
import type { Logger } from "../log/index.js";
import { JsonRpcCode } from "../json-rpc/index.js";
import type { CodexNotification, CodexServerRequest } from "./messages.js";
import { refusalFor } from "./requests.js";
import { threadIdOf } from "./schemas.js";
import { ServerRequestsInFlight } from "./server-requests.js";
import { describeIssue, readNotification, readServerRequest, type ValidationIssue } from "./validation.js";

/** Receives what app-server says about one thread. */
export interface ThreadListener {
  /** One notification of Codex's schema: checked and typed where the adapter reads it (messages.ts). */
  notification(n: CodexNotification): void;
  /** Answers a server->client request (approvals, elicitations), checked and typed likewise; `withdrawn` fires when Codex settles it elsewhere. */
  request(request: CodexServerRequest, withdrawn: AbortSignal): Promise<unknown>;
}

export class IncomingRouter {
  private readonly threads = new Map<string, ThreadListener>();
  /** Codex's requests being answered, withdrawn when Codex settles one elsewhere. */
  private readonly inFlight = new ServerRequestsInFlight();
  private readonly globalListeners = new Set<(method: string, params: unknown) => void>();
  /** Methods already reported as unreadable or unknown (once each: a stream of bad deltas is one line). */
  private readonly reported = new Set<string>();
  /** Whether codex's messages are logged (trace level), asked once: pino's check per streamed delta showed in profiles. */
  private readonly traceMessages: boolean;

  /** `write` sends a message (an answer) to codex. */
  constructor(
    private readonly log: Logger,
    private readonly write: (message: unknown) => void,
  ) {
    this.traceMessages = log.isLevelEnabled("trace");
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

  /** A notification: to every global listener, and to its thread's listener once checked. */
  notification(method: string, params: unknown): void {
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
      this.reportOnce(method, () =>
        this.log.info({ method }, "codex sent a notification this version does not know; not shown"),
      );
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
      this.log.warn(
        { method, path: issue.path, issue: issue.message },
        "codex sent a message Codex's schema does not describe; ignored (further ones of this method are not logged)",
      ),
    );
  }

  private reportOnce(method: string, report: () => void): void {
    if (this.reported.has(method)) return;
    this.reported.add(method);
    report();
  }

  /** A listener that throws on an unexpected message must not take the adapter down: logged, skipped. */
  private listenerFailed(method: string, err: unknown): void {
    this.log.error(
      { method, err: err instanceof Error ? err.message : String(err) },
      "handling a codex notification failed; skipped",
    );
  }

  /** A server->client request: answered by its thread's listener, or refused at once. */
  request(id: number | string, method: string, params: unknown): void {
    if (this.traceMessages) this.log.trace({ method, params }, "codex request");
    const read = readServerRequest(method, params);
    if (read.kind !== "read") {
      // Answered at once: Codex would otherwise wait on it (a turn held until it times out).
      if (read.kind === "invalid") this.reportUnreadable(method, read.issue);
      else
        this.reportOnce(method, () =>
          this.log.warn({ method }, "codex sent a request this version does not know; refused"),
        );
      const error =
        read.kind === "invalid"
          ? {
              code: JsonRpcCode.InvalidParams,
              message: `codex-cli-acp cannot read this ${method}: ${describeIssue(read.issue)}`,
            }
          : { code: JsonRpcCode.MethodNotFound, message: `codex-cli-acp does not know ${method}` };
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
      else
        this.write({
          id,
          error: { code: JsonRpcCode.MethodNotFound, message: `codex-cli-acp cannot answer ${method} here` },
        });
      return;
    }
    const answering = this.inFlight.begin(id);
    listener
      .request(request, answering.signal)
      .then(
        (result) => this.write({ id, result }),
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          this.log.warn({ method, err: message }, "answering a codex request failed");
          this.write({ id, error: { code: JsonRpcCode.InternalError, message } });
        },
      )
      .finally(answering.done);
  }
}
