// Small facts about JSON-RPC messages in a transcript: their kind, ids, session and a label
// for reports.
import type { TranscriptEntry } from "../format.js";

export type Json = Record<string, unknown>;
export type Kind = "request" | "notification" | "response";

export function kindOf(msg: Json): Kind {
  if (typeof msg.method === "string") return "id" in msg ? "request" : "notification";
  return "response";
}

export function idKey(id: unknown): string {
  return JSON.stringify(id ?? null);
}

export function sessionIdOf(msg: Json): unknown {
  const params = msg.params;
  return params && typeof params === "object" ? (params as Json).sessionId : undefined;
}

/** Notifications are matched per method and session, in order. */
export function streamKey(method: string, sessionId: unknown): string {
  return `${method} ${JSON.stringify(sessionId ?? null)}`;
}

/** "agent->client notification session/update (tool_call)", "... response to session/new id 1". */
export function labelOf(entry: TranscriptEntry, requestMethod?: string): string {
  if (entry.type === "raw") return `${entry.dir} non-JSON line`;
  const msg = entry.msg;
  const kind = kindOf(msg);
  if (kind === "response") {
    const what = "error" in msg ? "error response" : "response";
    return `${entry.dir} ${what} to ${requestMethod ?? "request"} id ${idKey(msg.id)}`;
  }
  let label = `${entry.dir} ${kind} ${String(msg.method)}`;
  const update = (msg.params as Json | undefined)?.update as Json | undefined;
  if (msg.method === "session/update" && typeof update?.sessionUpdate === "string")
    label += ` (${update.sessionUpdate})`;
  return label;
}

/**
 * Advisory agent messages are not matched either way: ACP `notice` updates are live,
 * fire-and-forget information that an agent may or may not send (a warning about the machine it
 * runs on, such as Codex's "bubblewrap not found"), and no client may rely on one.
 */
export function isAdvisory(msg: Json): boolean {
  const update = (msg.params as Json | undefined)?.update as Json | undefined;
  return msg.method === "session/update" && update?.sessionUpdate === "notice";
}

/**
 * ACP v2 `state_update`s are snapshots, and a repeated one is idempotent (not new work): how
 * often an agent repeats one can depend on timing, so a snapshot equal to the session's previous
 * one is not matched, on either side. Fed every notification of one side in order.
 */
export class RepeatedSnapshots {
  private readonly last = new Map<string, string>();

  /** Whether `msg` repeats its session's previous state snapshot (and remembers it when not). */
  isRepeat(msg: Json): boolean {
    const update = (msg.params as Json | undefined)?.update as Json | undefined;
    if (msg.method !== "session/update" || update?.sessionUpdate !== "state_update") return false;
    const session = JSON.stringify(sessionIdOf(msg) ?? null);
    const snapshot = JSON.stringify(update);
    if (this.last.get(session) === snapshot) return true;
    this.last.set(session, snapshot);
    return false;
  }
}
