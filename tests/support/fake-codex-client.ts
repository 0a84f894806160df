// The one stand-in for the codex client (src/codex/client.ts) in unit tests: the part of
// AppServerClient that sessions, history replay and the readers use, typed as that, answering
// each call by its method (params typed by Codex's schema, results partial: only the fields the
// code under test reads), with the calls it was sent and the thread listeners attached to it.
import type { z } from "zod";
import type {
  AppServerClient,
  CodexHost,
  CodexMethod,
  CodexNotification,
  CodexRequests,
  ThreadListener,
} from "../../src/codex/index.js";

/** A value with only some of its fields, at every depth (what a test answers for a Codex result). */
export type Partly<T> =
  T extends ReadonlyArray<infer U>
    ? ReadonlyArray<Partly<U>>
    : T extends object
      ? { [K in keyof T]?: Partly<T[K]> }
      : T;

/** How the fake answers one method: its result (or a promise of it); throwing fails the call. */
export type FakeAnswer<M extends CodexMethod> = (
  params: CodexRequests[M]["params"],
) => Partly<CodexRequests[M]["result"]> | Promise<Partly<CodexRequests[M]["result"]>>;
export type FakeAnswers = { [M in CodexMethod]?: FakeAnswer<M> };

/** One call the fake was sent. */
export type FakeCall = { method: CodexMethod; params: unknown };

export type FakeCodexOptions = {
  /** The answers by method; a method without one is answered `otherwise`. */
  answers?: FakeAnswers;
  /** The answer to a method `answers` has none for (default: an empty result, `{}`). */
  otherwise?: (call: FakeCall) => unknown;
};

export class FakeCodexClient {
  readonly pid = 1;
  /** Every call, in the order it was sent. */
  readonly calls: FakeCall[] = [];
  /** The thread listeners, by thread id (app-server's one per thread). */
  readonly threads = new Map<string, ThreadListener>();
  private readonly answers: FakeAnswers;
  private readonly otherwise: (call: FakeCall) => unknown;

  constructor({ answers = {}, otherwise = () => ({}) }: FakeCodexOptions = {}) {
    this.answers = answers;
    this.otherwise = otherwise;
  }

  /** This fake, as the codex client the code under test takes. */
  get client(): AppServerClient {
    return this as unknown as AppServerClient;
  }

  hasThread(threadId: string): boolean {
    return this.threads.has(threadId);
  }

  attachThread(threadId: string, listener: ThreadListener): () => void {
    this.threads.set(threadId, listener);
    return () => {
      if (this.threads.get(threadId) === listener) this.threads.delete(threadId);
    };
  }

  async call<M extends CodexMethod>(
    method: M,
    params: CodexRequests[M]["params"],
    schema?: z.ZodType,
  ): Promise<unknown> {
    const call = { method, params };
    this.calls.push(call);
    const answer = this.answers[method];
    const result = await (answer ? answer(params) : this.otherwise(call));
    return schema ? schema.parse(result) : result;
  }

  /** The methods called, in order. */
  get methods(): CodexMethod[] {
    return this.calls.map((c) => c.method);
  }

  /** The listener of `threadId` (default: the one thread attached); throws when there is none. */
  listener(threadId?: string): ThreadListener {
    const listener = threadId === undefined ? [...this.threads.values()].at(-1) : this.threads.get(threadId);
    if (!listener) throw new Error(`no listener on ${threadId ?? "any thread"}`);
    return listener;
  }

  /** Tells a notification to the listener of `threadId` (default: the one thread attached), as the real client routes it. */
  emit(notification: CodexNotification, threadId?: string): void {
    this.listener(threadId).notification(notification);
  }
}

/** A host whose codex is `codex` (child generation 1), with what else a test gives it. */
export function fakeHost(codex: FakeCodexClient, extra: Record<string, unknown> = {}): CodexHost {
  return { client: async () => codex.client, currentGeneration: 1, ...extra } as unknown as CodexHost;
}
