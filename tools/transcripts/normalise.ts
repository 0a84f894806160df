// Normalisation and comparison of agent messages (rules: contracts/transcript-format.md).
//  - absolute paths of a run (workspace, CODEX_HOME, HOME, temp dir) -> placeholders "<CWD>", ...
//  - ISO-8601 date-time strings -> "<TIMESTAMP>"; numbers under time-like keys -> "<TIME>"
//  - numbers under duration-like keys -> "<DURATION>"; agentInfo.version -> "<VERSION>"
//  - ids (sessionId, toolCallId, ...; and the JSON-RPC id of agent requests) are not rewritten
//    but mapped recorded -> live by first appearance, so a consistent renaming passes and an
//    inconsistent one (two recorded ids -> one live id, or the reverse) is a difference.
//  - a redacted recording's markers (redaction-marker.ts) match the live values they stand for.
import { matchesRedaction } from "./redaction/redaction-marker.js";

/** Keys whose string values are identifiers chosen by the agent at run time. */
const ID_KEYS: ReadonlySet<string> = new Set([
  "sessionId",
  "toolCallId",
  "terminalId",
  "elicitationId",
  "compactionId",
  "messageId",
  "userMessageId",
  // ACP v2: a plan_update names its plan by an id the agent picks.
  "planId",
]);

/** The IdMap category of JSON-RPC ids of agent->client requests. */
export const JSONRPC_ID = "jsonrpc-id";

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const TIME_KEY =
  /^(timestamp|time|date|createdAt|updatedAt|startedAt|completedAt|endedAt|lastModified|mtime|ctime)$|(At|_at|Time|_time|Timestamp|_timestamp)$/;
const DURATION_KEY = /(duration|elapsed|latency)|(Ms|_ms|Millis|_millis|Seconds|_seconds|Secs|_secs)$/i;

/** Placeholder -> absolute path(s) it stands for, e.g. {"<CWD>": ["/tmp/r1/ws", "/private/tmp/r1/ws"]}. */
export type Placeholders = Record<string, string | string[]>;

function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, fn);
    return out;
  }
  return value;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Replaces every occurrence of the given absolute paths by their placeholders (e.g. "/tmp/x/ws" -> "<CWD>"). */
export function pathsToPlaceholders(value: unknown, placeholders: Placeholders): unknown {
  // Longest path first, so "<CWD>" wins over an enclosing "<TMP>"; a path only matches whole
  // (followed by a separator, a quote, whitespace or the end), so "/tmp" leaves "/tmpfoo" alone.
  const pairs: Array<[string, string]> = [];
  for (const [name, p] of Object.entries(placeholders)) {
    for (const one of Array.isArray(p) ? p : [p]) {
      const trimmed = one.length > 1 ? one.replace(/[\\/]+$/, "") : one;
      if (trimmed.length > 1) pairs.push([name, trimmed]);
    }
  }
  if (pairs.length === 0) return value;
  pairs.sort((a, b) => b[1].length - a[1].length);
  const re = new RegExp(`(?:${pairs.map(([, p]) => escapeRegExp(p)).join("|")})(?![\\w-]|\\.\\w)`, "g");
  const byPath = new Map(pairs.map(([name, p]) => [p, name]));
  return mapStrings(value, (s) => s.replace(re, (m) => byPath.get(m) ?? m));
}

/** Replaces placeholders by the paths of this run (the inverse of pathsToPlaceholders; first path wins). */
export function placeholdersToPaths(value: unknown, placeholders: Placeholders): unknown {
  const entries: Array<[string, string]> = [];
  for (const [name, p] of Object.entries(placeholders)) {
    const first = Array.isArray(p) ? p[0] : p;
    if (first !== undefined) entries.push([name, first]);
  }
  if (entries.length === 0) return value;
  return mapStrings(value, (s) => {
    let out = s;
    for (const [name, p] of entries) if (out.includes(name)) out = out.split(name).join(p);
    return out;
  });
}

/** Applies the value rules (timestamps, durations, versions) to an agent message. */
export function normaliseValues(value: unknown, key?: string, parentKey?: string): unknown {
  if (typeof value === "string") {
    if (ISO_DATE_TIME.test(value)) return "<TIMESTAMP>";
    // v1 names the agent's implementation `agentInfo`, v2 `info` (only agent messages are normalised).
    if (key === "version" && (parentKey === "agentInfo" || parentKey === "serverInfo" || parentKey === "info"))
      return "<VERSION>";
    return value;
  }
  if (typeof value === "number" && key !== undefined) {
    if (TIME_KEY.test(key)) return "<TIME>";
    if (DURATION_KEY.test(key)) return "<DURATION>";
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => normaliseValues(v, undefined, key));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normaliseValues(v, k, key);
    return out;
  }
  return value;
}

/** Full normalisation of one agent message: paths of the run, then the value rules. */
export function normaliseMessage(msg: unknown, placeholders: Placeholders): unknown {
  return normaliseValues(pathsToPlaceholders(msg, placeholders));
}

/** A bijection recorded id -> live id per category, learnt by first appearance. Ids are strings or numbers. */
export class IdMap {
  private readonly forward = new Map<string, Map<string, string>>();
  private readonly reverse = new Map<string, Map<string, string>>();

  private maps(category: string): [Map<string, string>, Map<string, string>] {
    let f = this.forward.get(category);
    let r = this.reverse.get(category);
    if (!f) this.forward.set(category, (f = new Map<string, string>()));
    if (!r) this.reverse.set(category, (r = new Map<string, string>()));
    return [f, r];
  }

  /** Checks (and on first appearance binds) recorded <-> live. Returns a reason when inconsistent. */
  check(category: string, recorded: unknown, live: unknown): string | null {
    const [f, r] = this.maps(category);
    const rec = JSON.stringify(recorded);
    const liv = JSON.stringify(live);
    const boundLive = f.get(rec);
    if (boundLive !== undefined) {
      return boundLive === liv ? null : `recorded ${category} ${rec} was live ${boundLive} earlier`;
    }
    const boundRecorded = r.get(liv);
    if (boundRecorded !== undefined) return `live ${category} ${liv} already stands for recorded ${boundRecorded}`;
    f.set(rec, liv);
    r.set(liv, rec);
    return null;
  }

  toLive(category: string, recorded: unknown): unknown {
    const v = this.forward.get(category)?.get(JSON.stringify(recorded));
    return v === undefined ? undefined : JSON.parse(v);
  }

  toRecorded(category: string, live: unknown): unknown {
    const v = this.reverse.get(category)?.get(JSON.stringify(live));
    return v === undefined ? undefined : JSON.parse(v);
  }

  /** Rewrites recorded ids (ID_KEYS) in a client message to their live values, where known. */
  recordedToLive(value: unknown, key?: string): unknown {
    if (typeof value === "string" && key !== undefined && ID_KEYS.has(key)) return this.toLive(key, value) ?? value;
    if (Array.isArray(value)) return value.map((v) => this.recordedToLive(v));
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.recordedToLive(v, k);
      return out;
    }
    return value;
  }
}

export interface Difference {
  /** JSON path of the first differing field, e.g. "$.params.update.content.text". */
  path: string;
  expected: unknown;
  actual: unknown;
  reason?: string;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

export interface CompareOptions {
  /** Category under which the top-level "id" is mapped (agent requests); omitted: compared literally. */
  topLevelIdCategory?: string;
}

/**
 * Compares two normalised messages; returns the first difference (depth-first, in the
 * expected message's key order, then keys only the actual message has) or null.
 */
export function compareMessages(
  expected: unknown,
  actual: unknown,
  ids: IdMap,
  options: CompareOptions = {},
): Difference | null {
  const walk = (e: unknown, a: unknown, path: string, key: string | undefined, depth: number): Difference | null => {
    const category =
      depth === 1 && key === "id"
        ? options.topLevelIdCategory
        : key !== undefined && ID_KEYS.has(key)
          ? key
          : undefined;
    if (
      category !== undefined &&
      (typeof e === "string" || typeof e === "number") &&
      (typeof a === "string" || typeof a === "number")
    ) {
      const reason = ids.check(category, e, a);
      return reason ? { path, expected: e, actual: a, reason } : null;
    }
    if (Array.isArray(e) && Array.isArray(a)) {
      const n = Math.max(e.length, a.length);
      for (let i = 0; i < n; i++) {
        if (i >= e.length)
          return {
            path: childPath(path, i),
            expected: undefined,
            actual: a[i],
            reason: `${a.length - e.length} extra element(s)`,
          };
        if (i >= a.length)
          return {
            path: childPath(path, i),
            expected: e[i],
            actual: undefined,
            reason: `${e.length - a.length} missing element(s)`,
          };
        const d = walk(e[i], a[i], childPath(path, i), undefined, depth + 1);
        if (d) return d;
      }
      return null;
    }
    if (isPlainObject(e) && isPlainObject(a)) {
      for (const k of Object.keys(e)) {
        if (!(k in a)) return { path: childPath(path, k), expected: e[k], actual: undefined, reason: "missing field" };
        const d = walk(e[k], a[k], childPath(path, k), k, depth + 1);
        if (d) return d;
      }
      for (const k of Object.keys(a)) {
        if (!(k in e))
          return { path: childPath(path, k), expected: undefined, actual: a[k], reason: "unexpected field" };
      }
      return null;
    }
    if (e === a) return null;
    if (typeof e === "string" && typeof a === "string" && matchesRedaction(e, a)) return null;
    return { path, expected: e, actual: a };
  };
  return walk(expected, actual, "$", undefined, 0);
}

/** Renders a value for a diff: JSON, "(absent)" for a missing value, long values shortened. */
export function show(value: unknown, max = 400): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
