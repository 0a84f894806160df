// What `record` leaves out of a transcript unless told to keep it (`--keep-secrets`, issue 26):
// transcripts get shared (bug reports, contract tests), and a session carries credentials and the
// user's files. Every key stays, so the shape is still a valid, replayable ACP session:
//  - credentials -> "[redacted]": authenticate's (v2: auth/login's) `_meta` values; params/result fields named like a
//    credential (apiKey, api_key, token, authorization, password, secret, ...; any case, any depth,
//    string values); MCP servers' env and header values; every header value given to a model
//    provider (a header's name need not say it is one: Ocp-Apim-Subscription-Key); an address's
//    password and secret-looking query values; a command's credential arguments (`--api-key X`,
//    `--token=X`); a bearer token or an `sk-` key in a non-JSON line. A credential of 8 characters
//    or more is also scrubbed wherever it recurs (an agent's error message, a non-JSON line).
//  - files -> "[redacted file content: N bytes, L lines, sha256 H]": what the editor served
//    (fs/read_text_file answers) and what the agent wrote (fs/write_text_file requests), and agent
//    strings equal to one of them (a tool call's output, a diff's sides). The digest lets a replay
//    compare the live text, and answer a read with a workspace file that has it.
// Written by hand: the field rules depend on the message (its method, the request an answer is
// for) and on names matched by pattern at any depth, which path-based redactors (pino's) cannot say.
import { z } from "zod";
import type { TranscriptEntry } from "./format.js";
import { normaliseMessage, type Placeholders } from "./normalise.js";
import { SECRET_MARKER, fileContentMarkerOf } from "./redaction-marker.js";
import { replaceSecretText, replaceUrlSecrets } from "../../src/log/secret-text.js";

type Json = Record<string, unknown>;

/** Shorter values are not scrubbed from other text: "1" or "dev" would take every such word with them. */
const MIN_SCRUBBED_LENGTH = 8;

/** A key's words joined by "_": "accessToken", "ACCESS_TOKEN" and "access-token" all read "access_token". */
function wordsOf(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .join("_");
}

// "token" but not "tokens" (counts: maxTokens, outputTokens), "secret" but not "secretive".
const CREDENTIAL_WORDS = /(^|_)(api_?key|token|secrets?|passw(or)?d|passphrase|credentials?|authorization|cookie|bearer|private_?key|access_?key)(_|$)/;
// In an environment variable's name a bare KEY is a credential too (STRIPE_KEY); in a JSON key it is not.
const ENV_KEY_WORD = /(^|_)key(_|$)/;

/** Whether a field (or an environment variable, with `env`) is named like a credential. */
export function looksLikeCredential(name: string, env = false): boolean {
  const words = wordsOf(name);
  return words === "auth" || CREDENTIAL_WORDS.test(words) || (env && ENV_KEY_WORD.test(words));
}

/** The content a file marker stands for, its digest over the portable text (see redaction-marker.ts). */
export function fileContentMarker(content: string, placeholders: Placeholders): string {
  return fileContentMarkerOf(content, normaliseMessage(content, placeholders) as string);
}

const nameValueSchema = z.looseObject({ name: z.string(), value: z.string() });
const withContentSchema = z.looseObject({ content: z.string() });

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  return value;
}

/** What one pass found: credentials to scrub elsewhere, file contents with their markers. */
class Findings {
  readonly secrets = new Set<string>();
  readonly contents = new Map<string, string>();
  constructor(private readonly placeholders: Placeholders) {}

  secret(value: string): string {
    if (value === SECRET_MARKER) return value;
    for (const part of [value, ...value.split(/\s+/)]) if (part.length >= MIN_SCRUBBED_LENGTH) this.secrets.add(part);
    return SECRET_MARKER;
  }

  content(value: string): string {
    let marker = this.contents.get(value);
    if (marker === undefined) this.contents.set(value, (marker = fileContentMarker(value, this.placeholders)));
    return marker;
  }
}

/** String values under credential-like names -> the marker, at any depth. */
function redactCredentialFields(value: unknown, found: Findings): unknown {
  if (Array.isArray(value)) return value.map((v) => redactCredentialFields(v, found));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === "string" && looksLikeCredential(k) ? found.secret(v) : redactCredentialFields(v, found)]),
  );
}

/** A query parameter named as a credential, by the same words as any field (src/log/secret-text.ts has the forms). */
const credentialQuery = (name: string): boolean => looksLikeCredential(name, true);

/** An address with its userinfo and secret-looking query values replaced (the rest is kept: it says where). */
function redactUrl(text: string, found: Findings): string {
  return replaceUrlSecrets(text, (secret) => found.secret(secret), credentialQuery);
}

/** A command line's credential arguments: the value after `--api-key` (and its kin), or in `--token=value`. */
function redactArgs(args: unknown, found: Findings): unknown {
  if (!Array.isArray(args)) return args;
  const flag = (arg: unknown): string | undefined => (typeof arg === "string" ? /^--?([\w-]+)$/.exec(arg)?.[1] : undefined);
  return args.map((arg, i) => {
    if (typeof arg !== "string") return arg;
    const assigned = /^(--?([\w-]+)=)(.+)$/.exec(arg);
    if (assigned && looksLikeCredential(assigned[2]!, true)) return `${assigned[1]}${found.secret(assigned[3]!)}`;
    const before = flag(args[i - 1]);
    return before !== undefined && looksLikeCredential(before, true) && !arg.startsWith("-") ? found.secret(arg) : redactUrl(arg, found);
  });
}

/** A header map's values -> the marker (names kept): whatever a header is called, it can carry a key (scrubbed where it recurs too). */
function redactHeaderMap(headers: unknown, found: Findings): unknown {
  return isObject(headers) ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, typeof value === "string" ? found.secret(value) : SECRET_MARKER])) : headers;
}

/** An MCP server's env and header values -> the marker (names kept: they say what was set); its address and arguments' credentials too. */
function redactMcpServer(server: unknown, found: Findings): unknown {
  if (!isObject(server)) return server;
  const pairs = (list: unknown, env: boolean): unknown =>
    Array.isArray(list)
      ? list.map((item) => {
          const pair = nameValueSchema.safeParse(item);
          if (!pair.success) return item;
          const value = looksLikeCredential(pair.data.name, env) ? found.secret(pair.data.value) : SECRET_MARKER;
          return { ...pair.data, value };
        })
      : list;
  return {
    ...server,
    ...("env" in server ? { env: pairs(server.env, true) } : {}),
    ...("headers" in server ? { headers: pairs(server.headers, false) } : {}),
    ...(typeof server.url === "string" ? { url: redactUrl(server.url, found) } : {}),
    ...("args" in server ? { args: redactArgs(server.args, found) } : {}),
  };
}

/** The field rules for one message; `agentRequests` (JSON-RPC id -> method) says what an answer answers. */
function redactMessage(dir: TranscriptEntry["dir"], msg: Json, agentRequests: Map<string, string>, found: Findings): Json {
  const method = typeof msg.method === "string" ? msg.method : undefined;
  const id = JSON.stringify(msg.id ?? null);
  if (dir === "agent->client" && method !== undefined && "id" in msg) agentRequests.set(id, method);
  const out: Json = { ...msg };
  if (isObject(msg.result)) out.result = redactCredentialFields(msg.result, found);
  if (!isObject(msg.params)) {
    const answered = dir === "client->agent" && method === undefined ? agentRequests.get(id) : undefined;
    const read = withContentSchema.safeParse(out.result);
    if (answered === "fs/read_text_file" && read.success) out.result = { ...read.data, content: found.content(read.data.content) };
    return out;
  }
  const params: Json = redactCredentialFields(msg.params, found) as Json;
  // `auth/login` is ACP v2's `authenticate`.
  if (dir === "client->agent" && (method === "authenticate" || method === "auth/login") && params._meta !== undefined) {
    params._meta = mapStrings(params._meta, (s) => found.secret(s));
  }
  if (dir === "client->agent" && Array.isArray(params.mcpServers)) params.mcpServers = params.mcpServers.map((s) => redactMcpServer(s, found));
  if (dir === "client->agent" && method === "providers/set") {
    if ("headers" in params) params.headers = redactHeaderMap(params.headers, found);
    if (typeof params.baseUrl === "string") params.baseUrl = redactUrl(params.baseUrl, found);
  }
  if (dir === "agent->client" && method === "fs/write_text_file" && typeof params.content === "string") params.content = found.content(params.content);
  out.params = params;
  return out;
}

// A line that is not JSON (a client cut off mid-message, an agent's log on stdout) is matched as
// text: `"apiKey": "..."` and the value of `{"name": ..., "value": ...}` (an env or header pair).
const JSON_STRING = String.raw`"((?:[^"\\]|\\.)*)(?:"|$)`;
const NAMED_STRING = new RegExp(String.raw`"((?:[^"\\]|\\.)*)"(\s*:\s*)${JSON_STRING}`, "g");
const NAME_VALUE_PAIR = new RegExp(String.raw`("name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"value"\s*:\s*)${JSON_STRING}`, "g");

function redactRawLine(text: string, found: Findings): string {
  return replaceSecretText(text, (secret) => found.secret(secret), credentialQuery)
    .replace(NAME_VALUE_PAIR, (_m, head: string, name: string, value: string) => `${head}"${looksLikeCredential(name, true) ? found.secret(value) : SECRET_MARKER}"`)
    .replace(NAMED_STRING, (m, name: string, colon: string, value: string) => (looksLikeCredential(name) ? `"${name}"${colon}"${found.secret(value)}"` : m));
}

/** The agent's command line for the transcript's header, its credential arguments replaced (a replay then passes its own). */
export function redactCommand(command: readonly string[]): string[] {
  return redactArgs([...command], new Findings({})) as string[];
}

/**
 * The entries with what they must not keep replaced by markers (see the top of this file); the
 * input is not changed. `placeholders`: the run's paths, for the digests of file contents (pass {}
 * when the entries already hold placeholders).
 */
export function redactTranscript(entries: readonly TranscriptEntry[], placeholders: Placeholders): TranscriptEntry[] {
  const found = new Findings(placeholders);
  const agentRequests = new Map<string, string>();
  const byFields = entries.map((entry): TranscriptEntry =>
    entry.type === "raw" ? { ...entry, text: redactRawLine(entry.text, found) } : { ...entry, msg: redactMessage(entry.dir, entry.msg, agentRequests, found) },
  );
  if (found.secrets.size === 0 && found.contents.size === 0) return byFields;
  // Longest first, so a credential that contains another is scrubbed whole.
  const secrets = [...found.secrets].sort((a, b) => b.length - a.length);
  const scrub = (s: string): string => secrets.reduce((text, secret) => (text.includes(secret) ? text.split(secret).join(SECRET_MARKER) : text), s);
  return byFields.map((entry): TranscriptEntry => {
    if (entry.type === "raw") return { ...entry, text: scrub(entry.text) };
    const echo = (s: string): string => (entry.dir === "agent->client" && s !== "" ? found.contents.get(s) : undefined) ?? scrub(s);
    return { ...entry, msg: mapStrings(entry.msg, echo) as Json };
  });
}
