// What `record` leaves out of a transcript unless told to keep it (`--keep-secrets`, issue 26):
// transcripts get shared (bug reports, contract tests), and a session carries credentials and the
// user's files. Every key stays, so the shape is still a valid, replayable ACP session:
//  - credentials -> "[redacted]": authenticate's (v2: auth/login's) `_meta` values; params/result fields named like a
//    credential (apiKey, api_key, token, authorization, password, secret, ...; any case, any depth,
//    string values); MCP servers' env and header values; every header value given to a model
//    provider (a header's name need not say it is one: Ocp-Apim-Subscription-Key); an address's
//    password and secret-looking query values; a command's credential arguments (`--api-key X`,
//    `--token=X`, `NAME=X` as docker's `-e` takes it, the value of a `-H`/`--header`); terminal/create's
//    env values; a bearer token or an `sk-` key in an argument or a non-JSON line. A credential of
//    8 characters or more is also scrubbed wherever it recurs (an agent's error message, a non-JSON
//    line), and so are the ones the caller names (`record`: its environment's credentials, which an
//    agent's `printenv` would show).
//  - files -> "[redacted file content: N bytes, L lines, sha256 H]": what the editor served
//    (fs/read_text_file answers) and what the agent wrote (fs/write_text_file requests), a diff's
//    sides, a read tool call's output, and agent strings equal to one of them. The digest lets a
//    replay compare the live text, and answer a read with a workspace file that has it. A line of
//    such a file (8 characters or more) in another agent string -> "[redacted]" (a windowed read's
//    output, a quote in a message), and a credential the file assigns is scrubbed everywhere.
// Written by hand: the field rules depend on the message (its method, the request an answer is
// for) and on names matched by pattern at any depth, which path-based redactors (pino's) cannot say.
import { z } from "zod";
import type { TranscriptEntry } from "../format.js";
import type { Placeholders } from "../normalise.js";
import { Findings, MIN_SCRUBBED_LENGTH, looksLikeCredential, redactText, redactUrl } from "./findings.js";
import { SECRET_MARKER } from "./redaction-marker.js";
import { redactAcrossChunks, spansOf } from "./redact-chunks.js";
import { replaceUrlSecrets } from "../../../src/log/secret-text.js";

export { fileContentMarker, looksLikeCredential } from "./findings.js";

type Json = Record<string, unknown>;

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

/** String values under credential-like names -> the marker, at any depth. */
function redactCredentialFields(value: unknown, found: Findings): unknown {
  if (Array.isArray(value)) return value.map((v) => redactCredentialFields(v, found));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      typeof v === "string" && looksLikeCredential(k) ? found.secret(v) : redactCredentialFields(v, found),
    ]),
  );
}

/** The flags whose value is an HTTP header (curl's, mcp-remote's): whatever a header is called, its value can be a key. */
const isHeaderFlag = (flag: string): boolean => flag === "H" || flag === "header";
/** The flags whose value is `NAME=value` for a process's environment (docker's, many launchers'). */
const isEnvFlag = (flag: string): boolean => flag === "e" || flag === "env";

/** A `NAME=value` setting named like a credential -> the value found; anything else by free text's forms. */
function redactSetting(arg: string, found: Findings): string {
  const setting = /^([A-Za-z_][\w.-]*)=([\s\S]+)$/.exec(arg);
  return setting && looksLikeCredential(setting[1]!, true)
    ? `${setting[1]}=${found.secret(setting[2]!)}`
    : redactText(arg, found);
}

/**
 * `Name: value` -> the name kept, the value replaced (whatever a header is called, its value can
 * be a key); scrubbed elsewhere too only when the name says it is one (`Content-Type`'s value is
 * not to be taken out of every prompt). A header without a name is all value.
 */
function redactHeaderLine(line: string, found: Findings): string {
  const named = /^([^:]+):(\s*)([\s\S]+)$/.exec(line);
  if (!named) return found.secret(line);
  return `${named[1]}:${named[2]}${looksLikeCredential(named[1]!.trim()) ? found.secret(named[3]!) : SECRET_MARKER}`;
}

/**
 * A command line's credential arguments: the value after `--api-key` (and its kin) or in
 * `--token=value`, a `NAME=value` setting named like a credential (docker's `-e`, `--env`), the
 * value of a header flag, and what free text's forms find in any other argument.
 */
function redactArgs(args: unknown, found: Findings): unknown {
  if (!Array.isArray(args)) return args;
  const flag = (arg: unknown): string | undefined =>
    typeof arg === "string" ? /^--?([\w-]+)$/.exec(arg)?.[1] : undefined;
  return args.map((arg: unknown, i) => {
    if (typeof arg !== "string") return arg;
    const before = flag(args[i - 1]);
    if (before !== undefined && isHeaderFlag(before)) return redactHeaderLine(arg, found);
    const assigned = /^(--?([\w-]+)=)([\s\S]+)$/.exec(arg);
    if (assigned && looksLikeCredential(assigned[2]!, true)) return `${assigned[1]}${found.secret(assigned[3]!)}`;
    if (assigned && isHeaderFlag(assigned[2]!)) return `${assigned[1]}${redactHeaderLine(assigned[3]!, found)}`;
    if (assigned && isEnvFlag(assigned[2]!)) return `${assigned[1]}${redactSetting(assigned[3]!, found)}`;
    if (before !== undefined && looksLikeCredential(before, true) && !arg.startsWith("-")) return found.secret(arg);
    return redactSetting(arg, found);
  });
}

/** A header map's values -> the marker (names kept): whatever a header is called, it can carry a key (scrubbed where it recurs too). */
function redactHeaderMap(headers: unknown, found: Findings): unknown {
  return isObject(headers)
    ? Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [
          name,
          typeof value === "string" ? found.secret(value) : SECRET_MARKER,
        ]),
      )
    : headers;
}

/**
 * Environment or header values -> the marker, names kept (they say what was set); a value named
 * like a credential is also scrubbed wherever it recurs. ACP's `{name, value}` list, or a map.
 */
function redactPairs(list: unknown, env: boolean, found: Findings): unknown {
  const valueOf = (name: string, value: string): string =>
    looksLikeCredential(name, env) ? found.secret(value) : SECRET_MARKER;
  if (isObject(list))
    return Object.fromEntries(
      Object.entries(list).map(([name, value]) => [
        name,
        typeof value === "string" ? valueOf(name, value) : SECRET_MARKER,
      ]),
    );
  if (!Array.isArray(list)) return list;
  return list.map((item: unknown) => {
    const pair = nameValueSchema.safeParse(item);
    return pair.success ? { ...pair.data, value: valueOf(pair.data.name, pair.data.value) } : item;
  });
}

/** An MCP server's env and header values -> the marker (names kept: they say what was set); its address and arguments' credentials too. */
function redactMcpServer(server: unknown, found: Findings): unknown {
  if (!isObject(server)) return server;
  return {
    ...server,
    ...("env" in server ? { env: redactPairs(server.env, true, found) } : {}),
    ...("headers" in server ? { headers: redactPairs(server.headers, false, found) } : {}),
    ...(typeof server.url === "string" ? { url: redactUrl(server.url, found) } : {}),
    ...("args" in server ? { args: redactArgs(server.args, found) } : {}),
  };
}

/** What a pass over the messages remembers: what an answer answers (JSON-RPC id -> method), and each tool call's kind. */
type Seen = { agentRequests: Map<string, string>; toolKinds: Map<string, string> };

/** A diff's sides -> file content markers, at any depth (a tool call's content, a permission prompt's tool call). */
function redactDiffs(value: unknown, found: Findings): unknown {
  if (Array.isArray(value)) return value.map((v) => redactDiffs(v, found));
  if (!isObject(value)) return value;
  if (value.type === "diff") {
    const side = (text: unknown): unknown => (typeof text === "string" && text !== "" ? found.content(text) : text);
    return {
      ...value,
      ...("oldText" in value ? { oldText: side(value.oldText) } : {}),
      ...("newText" in value ? { newText: side(value.newText) } : {}),
    };
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDiffs(v, found)]));
}

/** A read tool call's output (rawOutput's strings, its text content) -> file content markers: what it read is a file. */
function redactToolCall(update: Json, seen: Seen, found: Findings): Json {
  const id = typeof update.toolCallId === "string" ? update.toolCallId : undefined;
  if (id !== undefined && typeof update.kind === "string") seen.toolKinds.set(id, update.kind);
  if (id === undefined || seen.toolKinds.get(id) !== "read") return update;
  const asFile = (text: string): string => (text.length >= MIN_SCRUBBED_LENGTH ? found.content(text) : text);
  const content = Array.isArray(update.content)
    ? update.content.map((item: unknown) =>
        isObject(item) && item.type === "content" && isObject(item.content) && typeof item.content.text === "string"
          ? { ...item, content: { ...item.content, text: asFile(item.content.text) } }
          : item,
      )
    : update.content;
  // `_meta` too: a terminal's output streamed as Zed's `terminal_output_delta` is what the command read.
  return {
    ...update,
    ...("rawOutput" in update ? { rawOutput: mapStrings(update.rawOutput, asFile) } : {}),
    ...("content" in update ? { content } : {}),
    ...("_meta" in update ? { _meta: mapStrings(update._meta, asFile) } : {}),
  };
}

/** The field rules for one message. */
function redactMessage(dir: TranscriptEntry["dir"], msg: Json, seen: Seen, found: Findings): Json {
  const agentRequests = seen.agentRequests;
  const method = typeof msg.method === "string" ? msg.method : undefined;
  const id = JSON.stringify(msg.id ?? null);
  if (dir === "agent->client" && method !== undefined && "id" in msg) agentRequests.set(id, method);
  const out: Json = { ...msg };
  if (isObject(msg.result)) out.result = redactCredentialFields(msg.result, found);
  if (!isObject(msg.params)) {
    const answered = dir === "client->agent" && method === undefined ? agentRequests.get(id) : undefined;
    const read = withContentSchema.safeParse(out.result);
    if (answered === "fs/read_text_file" && read.success)
      out.result = { ...read.data, content: found.content(read.data.content) };
    return out;
  }
  const params: Json = redactCredentialFields(msg.params, found) as Json;
  // `auth/login` is ACP v2's `authenticate`.
  if (dir === "client->agent" && (method === "authenticate" || method === "auth/login") && params._meta !== undefined) {
    params._meta = mapStrings(params._meta, (s) => found.secret(s));
  }
  if (dir === "client->agent" && Array.isArray(params.mcpServers))
    params.mcpServers = params.mcpServers.map((s) => redactMcpServer(s, found));
  if (dir === "client->agent" && method === "providers/set") {
    if ("headers" in params) params.headers = redactHeaderMap(params.headers, found);
    if (typeof params.baseUrl === "string") params.baseUrl = redactUrl(params.baseUrl, found);
  }
  if (dir === "agent->client" && method === "fs/write_text_file" && typeof params.content === "string")
    params.content = found.content(params.content);
  if (dir === "agent->client" && method === "terminal/create" && "env" in params)
    params.env = redactPairs(params.env, true, found);
  if (dir === "agent->client") {
    const withDiffs = redactDiffs(params, found) as Json;
    if (
      isObject(withDiffs.update) &&
      (withDiffs.update.sessionUpdate === "tool_call" || withDiffs.update.sessionUpdate === "tool_call_update")
    )
      withDiffs.update = redactToolCall(withDiffs.update, seen, found);
    if (isObject(withDiffs.toolCall)) withDiffs.toolCall = redactToolCall(withDiffs.toolCall, seen, found);
    out.params = withDiffs;
    return out;
  }
  out.params = params;
  return out;
}

// A line that is not JSON (a client cut off mid-message, an agent's log on stdout) is matched as
// text: `"apiKey": "..."` and the value of `{"name": ..., "value": ...}` (an env or header pair).
const JSON_STRING = String.raw`"((?:[^"\\]|\\.)*)(?:"|$)`;
const NAMED_STRING = new RegExp(String.raw`"((?:[^"\\]|\\.)*)"(\s*:\s*)${JSON_STRING}`, "g");
const NAME_VALUE_PAIR = new RegExp(
  String.raw`("name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"value"\s*:\s*)${JSON_STRING}`,
  "g",
);

function redactRawLine(text: string, found: Findings): string {
  return redactText(text, found)
    .replace(
      NAME_VALUE_PAIR,
      (_m, head: string, name: string, value: string) =>
        `${head}"${looksLikeCredential(name, true) ? found.secret(value) : SECRET_MARKER}"`,
    )
    .replace(NAMED_STRING, (m, name: string, colon: string, value: string) =>
      looksLikeCredential(name) ? `"${name}"${colon}"${found.secret(value)}"` : m,
    );
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
export function redactTranscript(
  entries: readonly TranscriptEntry[],
  placeholders: Placeholders,
  options: { secrets?: Iterable<string> } = {},
): TranscriptEntry[] {
  const found = new Findings(placeholders);
  for (const secret of options.secrets ?? []) if (secret.length >= MIN_SCRUBBED_LENGTH) found.secrets.add(secret);
  const seen: Seen = { agentRequests: new Map(), toolKinds: new Map() };
  const byFields = entries.map(
    (entry): TranscriptEntry =>
      entry.type === "raw"
        ? { ...entry, text: redactRawLine(entry.text, found) }
        : { ...entry, msg: redactMessage(entry.dir, entry.msg, seen, found) },
  );
  if (found.secrets.size === 0 && found.contents.size === 0) return byFields;
  // Longest first, so a credential that contains another is scrubbed whole.
  const secrets = [...found.secrets].sort((a, b) => b.length - a.length);
  const scrub = (s: string): string =>
    secrets.reduce((text, secret) => (text.includes(secret) ? text.split(secret).join(SECRET_MARKER) : text), s);
  const fileLines = found.fileLines();
  /** An agent string's lines that are a file's lines -> the marker (before the credentials: a line with one is still the file's line). */
  const withoutFileLines = (s: string): string => {
    if (fileLines.size === 0) return s;
    let kept = "";
    let at = 0;
    for (const [from, to] of spansOf(s, [], fileLines)) {
      kept += s.slice(at, from) + SECRET_MARKER;
      at = to;
    }
    return at === 0 ? s : kept + s.slice(at);
  };
  const scrubbed = byFields.map((entry): TranscriptEntry => {
    if (entry.type === "raw") return { ...entry, text: scrub(entry.text) };
    const fromAgent = entry.dir === "agent->client";
    const echo = (s: string): string =>
      (fromAgent && s !== "" ? found.contents.get(s) : undefined) ?? scrub(fromAgent ? withoutFileLines(s) : s);
    return { ...entry, msg: mapStrings(entry.msg, echo) as Json };
  });
  // What one chunk of a streamed message could not show whole: the chunks read together.
  return redactAcrossChunks(scrubbed, (joined) => spansOf(joined, secrets, fileLines), SECRET_MARKER);
}

/**
 * The credentials of an environment, for redactTranscript's `secrets`: the values of variables
 * named like one (`GITHUB_TOKEN`, `STRIPE_KEY`) and the passwords in addresses (`DATABASE_URL`).
 * An agent run under `record` inherits them, and a `printenv` in a tool's output would show them.
 */
export function secretsOfEnvironment(env: NodeJS.ProcessEnv): string[] {
  const found = new Findings({});
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (looksLikeCredential(name, true)) found.secret(value);
    else
      replaceUrlSecrets(
        value,
        (secret) => found.secret(secret),
        () => false,
      );
  }
  return [...found.secrets];
}
