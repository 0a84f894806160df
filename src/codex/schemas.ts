// Schemas for what crosses the boundary with `codex app-server` (newline-delimited
// JSON-RPC without the "jsonrpc" field). Only the fields this adapter reads are
// declared; everything else passes through untouched (`looseObject`).
import { z } from "zod";

const id = z.union([z.number(), z.string()]);

const rpcErrorSchema = z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() });

const resultSchema = z.looseObject({ id, result: z.unknown() });
const errorSchema = z.looseObject({ id, error: rpcErrorSchema });
const requestSchema = z.looseObject({ id, method: z.string(), params: z.unknown().optional() });
const notificationSchema = z.looseObject({ method: z.string(), params: z.unknown().optional() });

/** One incoming message, checked, and which of the four it is. */
export type IncomingMessage =
  | { kind: "result"; data: z.infer<typeof resultSchema> }
  | { kind: "error"; data: z.infer<typeof errorSchema> }
  | { kind: "request"; data: z.infer<typeof requestSchema> }
  | { kind: "notification"; data: z.infer<typeof notificationSchema> };
type Reading = ({ success: true } & IncomingMessage) | { success: false; error: z.ZodError };

/**
 * Validates one incoming message. The schema is chosen by shape first (method? id? error?), so
 * the hot path (thousands of deltas a second) never builds failed-branch issues.
 */
export const incomingMessageSchema = {
  safeParse(raw: unknown): Reading {
    const m = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    if (!("method" in m)) {
      // An answer with an error (set: `error: null` beside a result is a result) fails its request.
      if (m.error) {
        const read = errorSchema.safeParse(raw);
        return read.success ? { success: true, kind: "error", data: read.data } : read;
      }
      const read = resultSchema.safeParse(raw);
      return read.success ? { success: true, kind: "result", data: read.data } : read;
    }
    if ("id" in m) {
      const read = requestSchema.safeParse(raw);
      return read.success ? { success: true, kind: "request", data: read.data } : read;
    }
    // Every streamed delta is a notification: its envelope (a string `method`) is checked in place,
    // where an object schema copied every message (with the thread routing's copy, a tenth of
    // what a delta allocated: scripts/bench/alloc.ts).
    if (isNotificationEnvelope(m)) return { success: true, kind: "notification", data: m };
    const read = notificationSchema.safeParse(raw);
    return read.success ? { success: true, kind: "notification", data: read.data } : read;
  },
};

function isNotificationEnvelope(m: Record<string, unknown>): m is z.infer<typeof notificationSchema> {
  return notificationSchema.shape.method.safeParse(m.method).success;
}

/**
 * The thread a notification or request is about, for per-thread routing (read by hand, as
 * turns.ts reads the turn: the params were checked against Codex's schema where the adapter reads
 * them, and a zod object here would copy every streamed delta's params).
 */
export function threadIdOf(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null || !("threadId" in params)) return undefined;
  return typeof params.threadId === "string" ? params.threadId : undefined;
}

const turnSchema = z.looseObject({
  id: z.string(),
  rootTurnId: z.string().nullish(),
  // A string, not an enum: a status a newer codex adds must still end the turn (read as a normal end).
  status: z.string(),
  error: z
    .looseObject({
      message: z.string(),
      codexErrorInfo: z.unknown().optional(),
      additionalDetails: z.string().nullish(),
    })
    .nullish(),
  items: z.array(z.unknown()).optional(),
});

export const threadSchema = z.looseObject({
  id: z.string(),
  preview: z.string().optional(),
  name: z.string().nullish(),
  cwd: z.string(),
  createdAt: z.number().optional(),
  updatedAt: z.number().optional(),
  turns: z.array(turnSchema).optional(),
  /** Where Codex writes the thread's history (its rollout); the file exists from the first turn on. */
  path: z.string().nullish(),
  /** ThreadHistoryMode; an unknown value (a newer Codex) reads as unknown, not as an error. */
  historyMode: z.enum(["legacy", "paginated"]).optional().catch(undefined),
});
export type Thread = z.infer<typeof threadSchema>;
/** thread/read's answer (with its turns when asked for). */
export const threadReadResponseSchema = z.looseObject({ thread: threadSchema });

export const turnStartResponseSchema = z.looseObject({ turn: turnSchema });
export const turnCompletedSchema = z.looseObject({ threadId: z.string(), turn: turnSchema });

/** What the adapter reads from codex's `initialize` answer. */
export const initializeResultSchema = z.looseObject({
  codexHome: z.string().optional(),
  userAgent: z.string().optional(),
});

/** Codex's version in its initialize answer's user agent ("client/0.171.0 (os; arch) ..."). */
export function codexVersionOf(userAgent: string | undefined): string | undefined {
  return userAgent ? /\/(\d+\.\d+\.\d+[^\s]*)/.exec(userAgent)?.[1] : undefined;
}

export const accountResponseSchema = z.looseObject({
  account: z.looseObject({ type: z.string() }).nullable(),
  requiresOpenaiAuth: z.boolean(),
});

/** A user input element of `turn/start` (subset we produce). */
export type UserInput =
  | { type: "text"; text: string; text_elements: [] }
  | { type: "image"; url: string }
  | { type: "localImage"; path: string }
  | { type: "skill"; name: string; path: string };

export type AskForApproval = "untrusted" | "on-request" | "never";
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";
