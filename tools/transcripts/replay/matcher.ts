// Matches live agent messages with the recording: responses by id, agent requests by method in
// order, notifications by method and session in order, non-JSON lines in order; compares each
// pair after normalisation, validates every message against the ACP schema, answers agent
// requests with the recorded answers, and turns recorded client messages into live ones.
// No processes and no timers: it is fed entries and says what to send (tests/unit/replay-matcher.test.ts).
import { log } from "../../../src/log/index.js";
import type { LocatedEntry, TranscriptEntry } from "../format.js";
import {
  IdMap,
  JSONRPC_ID,
  type Placeholders,
  compareMessages,
  normaliseMessage,
  pathsToPlaceholders,
  placeholdersToPaths,
  show,
} from "../normalise.js";
import { fileContentDigest, matchesRedaction, sha256 } from "../redaction/redaction-marker.js";
import type { AcpValidators } from "../schema.js";
import {
  RepeatedSnapshots,
  idKey,
  isAdvisory,
  kindOf,
  labelOf,
  sessionIdOf,
  streamKey,
  type Json,
  type Kind,
} from "./messages.js";
import { NegotiatedSchema } from "./protocol.js";
import type { RecordedAgent, RecordingIndex } from "./recording.js";
import type { Mismatch } from "./types.js";
import { JsonRpcCode } from "../../../src/json-rpc/index.js";

export type MatcherDeps = {
  recording: RecordingIndex;
  /** Each ACP version's schema: the transcript's `initialize` picks one (protocol.ts). */
  validators: AcpValidators;
  /** Paths of the recording's run and of this run, by placeholder. */
  recordedPlaceholders: Placeholders;
  livePlaceholders: Placeholders;
  /**
   * The contents of the files this run seeded (this run's paths): a read answer a redacted
   * recording left out is given from the one with the recorded digest.
   */
  knownFileContents?: readonly string[];
  fail(m: Mismatch): void;
  /** Sends a client message (an answer to an agent request) to the agent. */
  send(msg: Json): void;
  aborted(): boolean;
};

export class Matcher {
  private readonly ids = new IdMap();
  private readonly sentMethods = new Map<string, string>();
  private readonly liveResponses = new Set<string>();
  private readonly liveSessions: string[] = [];
  private readonly liveRequestCount = new Map<string, number>();
  private readonly liveStreamCount = new Map<string, number>();
  private liveRawCount = 0;
  /** What the agent wrote through the editor so far, newest last: the editor would serve it back. */
  private readonly writtenContents: string[] = [];
  private pendingNotifications: Json[] = [];
  private readonly schema: NegotiatedSchema;
  private readonly liveSnapshots = new RepeatedSnapshots();

  constructor(private readonly deps: MatcherDeps) {
    this.schema = new NegotiatedSchema(deps.validators);
  }

  /** Whether the agent already answered the recorded request `id`. */
  answered(id: unknown): boolean {
    return this.liveResponses.has(idKey(id));
  }

  /** A recorded client message as it must be sent in this run (ids and paths made live, schema-checked). */
  liveClientMessage(entry: LocatedEntry): { entry: TranscriptEntry; line: string } {
    if (entry.type === "raw") {
      const text = this.toLive(entry.text) as string;
      return { entry: { type: "raw", dir: "client->agent", t: 0, text }, line: text };
    }
    const msg = this.toLive(entry.msg) as Json;
    this.checkSchema("client->agent", msg, undefined, entry.line);
    if (kindOf(msg) === "request") this.sentMethods.set(idKey(msg.id), String(msg.method));
    return { entry: { type: "message", dir: "client->agent", t: 0, msg }, line: JSON.stringify(msg) };
  }

  /** One live agent line (already parsed into an entry). */
  onAgentEntry(entry: TranscriptEntry): void {
    if (entry.type === "raw") return this.onRaw(entry.text);
    const msg = entry.msg;
    const kind = kindOf(msg);
    if (kind === "response") {
      const key = idKey(msg.id);
      const method = this.sentMethods.get(key);
      this.checkSchema("agent->client", msg, method);
      if (this.deps.aborted()) return;
      const rec = this.deps.recording.responses.get(key);
      if (!rec || rec.matched) {
        this.deps.fail({
          kind: "unexpected",
          summary: `unexpected ${labelOf(entry, method)}`,
          actual: msg,
          detail: `message: ${show(msg, 2000)}`,
        });
        return;
      }
      this.liveResponses.add(key);
      this.compare(rec, msg, kind);
      this.learnSession(rec.entry, msg);
      this.retryPending(); // a session/new response teaches the live session id
      return;
    }
    this.checkSchema("agent->client", msg, undefined);
    if (this.deps.aborted()) return;
    if (kind === "request") this.onAgentRequest(entry, msg);
    else this.onAgentNotification(msg);
  }

  /** At the end: notifications for sessions never learnt, and the first recorded message that never came. */
  finish(): void {
    for (const msg of this.pendingNotifications) {
      this.deps.fail({
        kind: "unexpected",
        summary: `unexpected agent->client notification ${String(msg.method)} for unknown session ${show(sessionIdOf(msg))}`,
        actual: msg,
      });
    }
    const missing = this.deps.recording.unmatched();
    const first = missing[0];
    if (first) {
      this.deps.fail({
        kind: "missing",
        line: first.entry.line,
        summary: `missing ${first.label} (recording line ${first.entry.line})${missing.length > 1 ? ` and ${missing.length - 1} more` : ""}`,
        expected: first.entry.type === "message" ? first.entry.msg : first.entry.text,
      });
    }
  }

  private onRaw(text: string): void {
    const rec = this.deps.recording.raw[this.liveRawCount++];
    if (!rec) {
      this.deps.fail({
        kind: "unexpected",
        summary: `unexpected non-JSON line from the agent: ${show(text)}`,
        actual: text,
      });
      return;
    }
    rec.matched = true;
    const expected = pathsToPlaceholders(
      rec.entry.type === "raw" ? rec.entry.text : "",
      this.deps.recordedPlaceholders,
    );
    const actual = pathsToPlaceholders(text, this.deps.livePlaceholders);
    if (
      expected === actual ||
      (typeof expected === "string" && typeof actual === "string" && matchesRedaction(expected, actual))
    )
      return;
    this.deps.fail({
      kind: "difference",
      line: rec.entry.line,
      path: "$",
      expected,
      actual,
      summary: `${rec.label} (recording line ${rec.entry.line}) differs`,
      detail: `  expected: ${show(expected)}\n  actual:   ${show(actual)}`,
    });
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
    const portable = pathsToPlaceholders(value, this.deps.recordedPlaceholders);
    // A hand-written transcript may name a session id its recorded responses never gave: it
    // stands for the newest live session that has no recorded counterpart yet.
    const sid = (portable as Json | undefined)?.params && ((portable as Json).params as Json).sessionId;
    if (typeof sid === "string" && this.ids.toLive("sessionId", sid) === undefined) {
      const unbound = [...this.liveSessions].reverse().find((l) => this.ids.toRecorded("sessionId", l) === undefined);
      if (unbound !== undefined) this.ids.check("sessionId", sid, unbound);
    }
    return this.ids.recordedToLive(placeholdersToPaths(portable, this.deps.livePlaceholders));
  }

  private checkSchema(
    dir: "client->agent" | "agent->client",
    msg: Json,
    method: string | undefined,
    line?: number,
  ): void {
    const violations = this.schema.validate(dir, msg, method);
    if (violations.length === 0) return;
    const entry: TranscriptEntry = { type: "message", dir, t: 0, msg };
    const first = violations[0]!;
    this.deps.fail({
      kind: "schema",
      ...(line !== undefined ? { line } : {}),
      path: first.path,
      summary: `${labelOf(entry, method)}${line !== undefined ? ` (recording line ${line})` : ""} violates the ACP schema at ${first.path}: ${first.message} (ACP v${this.schema.version})`,
      detail: [...violations.map((v) => `${v.path}: ${v.message}`), `message: ${show(msg, 2000)}`].join("\n"),
    });
  }

  private compare(rec: RecordedAgent, live: Json, kind: Kind): void {
    rec.matched = true;
    if (rec.entry.type !== "message") return;
    const expected = normaliseMessage(rec.entry.msg, this.deps.recordedPlaceholders);
    const actual = normaliseMessage(live, this.deps.livePlaceholders);
    const diff = compareMessages(
      expected,
      actual,
      this.ids,
      kind === "request" ? { topLevelIdCategory: JSONRPC_ID } : {},
    );
    if (!diff) return;
    this.deps.fail({
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

  private onAgentRequest(entry: TranscriptEntry, msg: Json): void {
    const method = String(msg.method);
    const written = (msg.params as Json | undefined)?.content;
    if (method === "fs/write_text_file" && typeof written === "string") this.writtenContents.push(written);
    const k = this.liveRequestCount.get(method) ?? 0;
    this.liveRequestCount.set(method, k + 1);
    const rec = this.deps.recording.requests.get(method)?.[k];
    if (!rec) {
      this.deps.fail({
        kind: "unexpected",
        summary: `unexpected ${labelOf(entry)} (the recording has ${k} of them)`,
        actual: msg,
        detail: `message: ${show(msg, 2000)}`,
      });
      if (!this.deps.aborted())
        this.deps.send({
          jsonrpc: "2.0",
          id: msg.id,
          error: { code: JsonRpcCode.InternalError, message: "replay: this request is not in the transcript" },
        });
      return;
    }
    this.compare(rec, msg, "request");
    if (this.deps.aborted() || rec.entry.type !== "message") return;
    const recorded = this.deps.recording.clientResponses.get(idKey(rec.entry.msg.id));
    if (!recorded || recorded.type !== "message") {
      log.debug({ method }, "replay: the recording never answered this request; leaving it unanswered");
      return;
    }
    const recordedReply = { ...(this.toLive(recorded.msg) as Json), id: msg.id };
    const reply = method === "fs/read_text_file" ? this.withServedContent(recordedReply, recorded.line) : recordedReply;
    this.checkSchema("client->agent", reply, method, recorded.line);
    if (!this.deps.aborted()) this.deps.send(reply);
  }

  /**
   * A read answer whose content a redacted recording left out: the text of this run with the
   * recorded digest (a seeded file, or what the agent wrote earlier) is what the editor served.
   * Without one the agent is given the marker, and the run says it is not the recorded one.
   */
  private withServedContent(reply: Json, line: number): Json {
    const result = reply.result as Json | undefined;
    const content = result?.content;
    const digest = typeof content === "string" ? fileContentDigest(content) : undefined;
    if (digest === undefined) return reply;
    const candidates = [...this.writtenContents].reverse().concat(this.deps.knownFileContents ?? []);
    const served = candidates.find((c) => sha256(normaliseMessage(c, this.deps.livePlaceholders) as string) === digest);
    if (served !== undefined) return { ...reply, result: { ...result, content: served } };
    this.deps.fail({
      kind: "redacted",
      line,
      expected: content,
      summary: `the recorded answer to fs/read_text_file (recording line ${line}) is redacted, and no file of this run has its content: the agent is given the marker instead (record with --keep-secrets, or seed the file in the header's workspace.files)`,
    });
    return reply;
  }

  private onAgentNotification(msg: Json): void {
    if (isAdvisory(msg)) return;
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
    // Checked once the message is taken (a held one comes through here again).
    if (this.liveSnapshots.isRepeat(msg)) return;
    const key = streamKey(method, recordedSession);
    const k = this.liveStreamCount.get(key) ?? 0;
    this.liveStreamCount.set(key, k + 1);
    const rec = this.deps.recording.streams.get(key)?.[k];
    if (!rec) {
      const entry: TranscriptEntry = { type: "message", dir: "agent->client", t: 0, msg };
      this.deps.fail({
        kind: "unexpected",
        summary: `unexpected ${labelOf(entry)}: the recording has only ${k} ${method} notification(s) for this session`,
        actual: msg,
        detail: `message: ${show(normaliseMessage(msg, this.deps.livePlaceholders), 2000)}`,
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
      if (this.deps.aborted()) return;
      this.onAgentNotification(msg);
    }
  }
}
