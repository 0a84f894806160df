// The script a fake Responses-API model plays back: one ScriptedResponse per POST /v1/responses.
// Plain JSON on purpose: scripts are stored in transcript headers and replayed later.
import { z } from "zod";

const usageSchema = z.strictObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});

const messageItemSchema = z
  .strictObject({
    type: z.literal("message"),
    text: z.string(),
    /** A number splits the text into that many pieces; an array gives the pieces (they must join to text). */
    deltas: z.union([z.number().int().positive(), z.array(z.string())]).optional(),
    id: z.string().optional(),
  })
  .refine((m) => !Array.isArray(m.deltas) || m.deltas.join("") === m.text, {
    message: "message deltas must join to text",
    path: ["deltas"],
  });

const reasoningItemSchema = z.strictObject({
  type: z.literal("reasoning"),
  summary: z.string(),
  deltas: z.union([z.number().int().positive(), z.array(z.string())]).optional(),
  id: z.string().optional(),
});

const functionCallItemSchema = z.strictObject({
  type: z.literal("function_call"),
  name: z.string().min(1),
  namespace: z.string().optional(),
  /** An object is JSON.stringify'd; a string is sent as is. */
  arguments: z.unknown(),
  callId: z.string().optional(),
});

const customToolCallItemSchema = z.strictObject({
  type: z.literal("custom_tool_call"),
  name: z.string().min(1),
  input: z.string(),
  callId: z.string().optional(),
});

export const scriptedItemSchema = z.union([
  messageItemSchema,
  reasoningItemSchema,
  functionCallItemSchema,
  customToolCallItemSchema,
]);

export const scriptedResponseSchema = z.strictObject({
  items: z.array(scriptedItemSchema).optional(),
  /** Pause before each SSE event (slow streams). */
  delayMs: z.number().int().nonnegative().optional(),
  /** Emit the items, then keep the stream open without response.completed until the server closes. */
  hang: z.boolean().optional(),
  /** Answer with this HTTP status (and an error JSON body) instead of a stream. */
  httpStatus: z.number().int().min(400).max(599).optional(),
  /** With httpStatus: the error body's message. Without: send response.failed with this message. */
  errorMessage: z.string().optional(),
  /** End the stream after the items without response.completed. */
  closeEarly: z.boolean().optional(),
  usage: usageSchema.optional(),
  /** HTTP headers of the answer (stream or error), e.g. Codex's rate-limit headers (rateLimitHeaders). */
  headers: z.record(z.string(), z.string()).optional(),
  /** A `response.metadata` event's `metadata`, sent before the items (e.g. openai_chatgpt_moderation_metadata). */
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const fakeModelScriptSchema = z.strictObject({
  responses: z.array(scriptedResponseSchema),
});

export type ScriptedItem =
  | { type: "message"; text: string; deltas?: number | string[]; id?: string }
  | { type: "reasoning"; summary: string; deltas?: number | string[]; id?: string }
  | { type: "function_call"; name: string; namespace?: string; arguments: unknown; callId?: string }
  | { type: "custom_tool_call"; name: string; input: string; callId?: string };

export type ScriptedUsage = { input_tokens: number; output_tokens: number; total_tokens: number };

export type ScriptedResponse = {
  items?: ScriptedItem[];
  delayMs?: number;
  hang?: boolean;
  httpStatus?: number;
  errorMessage?: string;
  closeEarly?: boolean;
  usage?: ScriptedUsage;
  headers?: Record<string, string>;
  metadata?: Record<string, unknown>;
};

export type FakeModelScript = { responses: ScriptedResponse[] };

// Keep the hand-written types and the schema in step (compile-time check only).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _scriptTypesMatch: Same<z.infer<typeof fakeModelScriptSchema>, FakeModelScript> = true;
void _scriptTypesMatch;

/** Parse (and validate) a script from unknown JSON: either `{responses:[...]}` or a bare array. */
export function parseFakeModelScript(value: unknown): FakeModelScript {
  if (Array.isArray(value)) return fakeModelScriptSchema.parse({ responses: value });
  return fakeModelScriptSchema.parse(value);
}

/** Split text into delta pieces: n roughly equal pieces, explicit pieces, or (default) word-sized pieces. */
export function splitDeltas(text: string, deltas?: number | string[]): string[] {
  if (Array.isArray(deltas)) return deltas.length > 0 ? deltas : [text];
  if (text.length === 0) return [""];
  if (typeof deltas === "number") {
    const n = Math.max(1, Math.min(deltas, text.length));
    const size = Math.ceil(text.length / n);
    const out: string[] = [];
    for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
    return out;
  }
  // Default: each word with its trailing whitespace.
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

// ---- builders ------------------------------------------------------------------------------

export type ResponseOptions = Omit<ScriptedResponse, "items">;

/** A response with one assistant message. */
export function textResponse(
  text: string,
  opts: ResponseOptions & { deltas?: number | string[]; reasoning?: string } = {},
): ScriptedResponse {
  const { deltas, reasoning, ...rest } = opts;
  const items: ScriptedItem[] = [];
  if (reasoning !== undefined) items.push({ type: "reasoning", summary: reasoning });
  items.push(deltas === undefined ? { type: "message", text } : { type: "message", text, deltas });
  return { ...rest, items };
}

/** A function_call item (e.g. `toolCall("exec_command", {cmd: "echo hi"}, {callId: "c1"})`). */
export function toolCall(
  name: string,
  args: unknown,
  opts: { callId?: string; namespace?: string } = {},
): ScriptedItem {
  const item: ScriptedItem = { type: "function_call", name, arguments: args };
  if (opts.callId !== undefined) item.callId = opts.callId;
  if (opts.namespace !== undefined) item.namespace = opts.namespace;
  return item;
}

/** A response whose only item is one function call. */
export function toolCallResponse(
  name: string,
  args: unknown,
  opts: { callId?: string; namespace?: string } & ResponseOptions = {},
): ScriptedResponse {
  const { callId, namespace, ...rest } = opts;
  const call: { callId?: string; namespace?: string } = {};
  if (callId !== undefined) call.callId = callId;
  if (namespace !== undefined) call.namespace = namespace;
  return { ...rest, items: [toolCall(name, args, call)] };
}

/** A custom tool call item; `applyPatch(patch)` is the common case. */
export function customToolCall(name: string, input: string, opts: { callId?: string } = {}): ScriptedItem {
  const item: ScriptedItem = { type: "custom_tool_call", name, input };
  if (opts.callId !== undefined) item.callId = opts.callId;
  return item;
}

export function applyPatch(patch: string, opts: { callId?: string } = {}): ScriptedItem {
  return customToolCall("apply_patch", patch, opts);
}

/** A response that fails with an HTTP status. */
export function httpError(status: number, message = `fake model error ${status}`): ScriptedResponse {
  return { httpStatus: status, errorMessage: message };
}

/** One rate-limit window as the model server reports it: percent used, its length, when it resets (Unix seconds). */
export type RateLimitWindowHeaders = { usedPercent: number; windowMinutes?: number; resetAt?: number };

/**
 * The headers the ChatGPT backend sends with every model answer and Codex turns into
 * `account/rateLimits/updated` (codex-rs/codex-api/src/rate_limits.rs: the `x-codex-*` family).
 * Verified with codex 0.169.0: these headers reach app-server clients even with an API-key
 * provider (a used percent is rounded to a whole number on the way); a `codex.rate_limits` event
 * in the SSE stream changes nothing there.
 */
export function rateLimitHeaders(limits: {
  primary?: RateLimitWindowHeaders;
  secondary?: RateLimitWindowHeaders;
  credits?: { hasCredits: boolean; unlimited: boolean; balance?: string };
}): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const slot of ["primary", "secondary"] as const) {
    const window = limits[slot];
    if (!window) continue;
    headers[`x-codex-${slot}-used-percent`] = String(window.usedPercent);
    if (window.windowMinutes !== undefined) headers[`x-codex-${slot}-window-minutes`] = String(window.windowMinutes);
    if (window.resetAt !== undefined) headers[`x-codex-${slot}-reset-at`] = String(window.resetAt);
  }
  if (limits.credits) {
    headers["x-codex-credits-has-credits"] = String(limits.credits.hasCredits);
    headers["x-codex-credits-unlimited"] = String(limits.credits.unlimited);
    if (limits.credits.balance !== undefined) headers["x-codex-credits-balance"] = limits.credits.balance;
  }
  return headers;
}
