// Reading loosely typed JSON from Codex (MCP results and arguments are any JSON) without casts.

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
