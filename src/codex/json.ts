// Reading loosely typed JSON from Codex (MCP results and arguments are any JSON) without casts, and
// writing a message as codex's parser takes it.

/** An object's own fields, or none when the value is not a plain JSON object. */
export function objectFields(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}

/** Like objectFields, also for an object sent as a JSON string (tool arguments may be). */
export function jsonFields(value: unknown): Record<string, unknown> {
  if (typeof value !== "string") return objectFields(value);
  try {
    return objectFields(JSON.parse(value) as unknown);
  } catch {
    return {};
  }
}

/** The escape JSON.stringify writes for a lone surrogate (paired ones are written as they are). */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The same without the global flag, for test(): a global regex's test() goes on from where the last one stopped. */
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE.source);

/** JSON.stringify's replacer: every string, and every object's keys, with lone surrogates replaced by U+FFFD. */
function wellFormedStrings(_key: string, value: unknown): unknown {
  if (typeof value === "string") return value.replace(LONE_SURROGATE, "\ufffd");
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const entries = Object.entries(value);
  // A key the replacer is never shown as a value: an object is rebuilt only when one of its keys needs it.
  if (!entries.some(([k]) => HAS_LONE_SURROGATE.test(k))) return value;
  return Object.fromEntries(entries.map(([k, v]) => [k.replace(LONE_SURROGATE, "\ufffd"), v]));
}

/**
 * A message as one JSON line for codex. A lone UTF-16 surrogate (a client's string with an emoji
 * cut in half) is written by JSON.stringify as a `\ud83d`-style escape, which codex's parser
 * refuses: it drops the whole message, and the request waits out its deadline (2 min). Rare: only
 * then is the message written again, each string made well-formed (U+FFFD in place of the half).
 */
export function jsonLineForCodex(message: unknown): string {
  const line = JSON.stringify(message);
  return LONE_SURROGATE_ESCAPE.test(line) ? JSON.stringify(message, wellFormedStrings) : line;
}
