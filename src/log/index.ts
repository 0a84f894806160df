// The one logger. stdout carries ACP only, so logs go to stderr (fd 2) or to
// CODEX_ACP_LOG_FILE. Level from CODEX_ACP_LOG_LEVEL (default "info"; an unknown level falls back
// to info with one warning rather than stopping the agent).
// Never log file contents, tokens or prompts at info level: use debug for payloads.
import { format } from "node:util";
import pino, { type Logger } from "pino";
import { textHead } from "../text/index.js";

export type { Logger };

const LEVELS: ReadonlySet<string> = new Set(Object.keys(pino.levels.values).concat("silent"));

function createLogger(): Logger {
  const wanted = process.env.CODEX_ACP_LOG_LEVEL ?? "info";
  const level = LEVELS.has(wanted) ? wanted : "info";
  const file = process.env.CODEX_ACP_LOG_FILE;
  // Synchronous destination: no worker thread (fast start), and nothing is lost on exit.
  const destination = file
    ? pino.destination({ dest: file, sync: true, mkdir: true })
    : pino.destination({ fd: 2, sync: true });
  const logger = pino(
    {
      level,
      base: { pid: process.pid },
      formatters: { log: boundedFields },
      redact: {
        paths: ["token", "*.token", "apiKey", "*.apiKey", "authorization", "*.authorization", "headers.authorization"],
        censor: "[redacted]",
      },
    },
    destination,
  );
  if (level !== wanted)
    logger.warn(
      { wanted, using: level, levels: Array.from(LEVELS) },
      "CODEX_ACP_LOG_LEVEL is not a log level; using info",
    );
  return logger;
}

export const log: Logger = createLogger();

/** The longest text a log field keeps (UTF-16 units). */
const MAX_FIELD_CHARS = 2000;

/**
 * A log record's fields with each long text cut to MAX_FIELD_CHARS and its length said (here and
 * one level down): a value the client sent may be megabytes (a 20 MB session id in a cancel for an
 * unknown session was logged whole, and its 60 MB encoding buffer left the C heap 20-40 MiB larger
 * for good).
 */
export function boundedFields(record: Record<string, unknown>, depth = 0): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    const value = record[key];
    let bounded = value;
    if (typeof value === "string" && value.length > MAX_FIELD_CHARS)
      bounded = `${textHead(value, MAX_FIELD_CHARS)}… (${value.length} chars)`;
    else if (
      depth === 0 &&
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      Object.getPrototypeOf(value) === Object.prototype
    ) {
      bounded = boundedFields(value as Record<string, unknown>, 1);
    }
    if (bounded !== value) (out ??= { ...record })[key] = bounded;
  }
  return out ?? record;
}

/**
 * Sends what libraries print with console.* (the ACP SDK reports a bad notification that way)
 * through the logger, so every line on stderr is a structured log line with a level and nothing
 * ever reaches stdout, which carries the protocol. Serve mode only.
 */
export function routeConsoleToLogger(logger: Logger): { complaintKinds(): number } {
  // The SDK's complaints about a client's malformed messages: a hostile or buggy client could send
  // thousands, so each kind is logged once (at debug) and counted. A kind names a method the client
  // chose: past MAX_COMPLAINT_KINDS, new ones share one kind.
  const malformed = new Map<string, number>();
  const to =
    (level: "debug" | "info" | "warn") =>
    (...args: unknown[]): void => {
      const text = format(...args);
      const named = complaintKind(args);
      const kind =
        named && !malformed.has(named) && malformed.size >= MAX_COMPLAINT_KINDS
          ? `${String(args[0])} (other methods)`
          : named;
      if (kind) {
        const seen = (malformed.get(kind) ?? 0) + 1;
        malformed.set(kind, seen);
        if (seen === 1)
          logger.debug(
            { source: "acp-sdk", kind, detail: text.slice(0, 500) },
            "malformed message from the client (logged once per kind)",
          );
        return;
      }
      logger[level]({ source: "console" }, text.slice(0, 2000));
    };
  console.log = to("info");
  console.info = to("info");
  console.debug = to("debug");
  console.trace = to("debug");
  console.warn = to("warn");
  console.error = to("warn");
  return { complaintKinds: () => malformed.size };
}

/** The most complaint kinds tallied one by one (each method the client invented is one). */
const MAX_COMPLAINT_KINDS = 64;

/** The ACP SDK's complaints about what the client sent: their first argument, and the method when given. */
const SDK_COMPLAINTS: ReadonlySet<string> = new Set([
  "Error handling notification",
  "Invalid message",
  "Got response to unknown request",
]);

function complaintKind(args: unknown[]): string | undefined {
  const [first, second] = args;
  if (typeof first !== "string" || !SDK_COMPLAINTS.has(first)) return undefined;
  const method =
    second && typeof second === "object" && "method" in second && typeof second.method === "string"
      ? second.method
      : undefined;
  return method ? `${first} ${method}` : first;
}
export { logEarlyPhases, markEarlyPhase, markPhase } from "./timings.js";
export { replaceSecretText } from "./secret-text.js";
