// What the codex client reads Codex's messages with: validators generated from Codex's own JSON
// schema (npm run codex:types; scripts/codex-validators.mjs says how strict they are and why:
// exact for the pinned binary, open to a newer Codex's enum values and union variants).
// Checked: the notifications and server requests whose params the adapter reads, and the result
// of every request it makes. Every other notification or request of Codex's schema is handed on
// with its params typed unknown (messages.ts). A method this build does not know is no thread's to
// read (global listeners still hear it). What passed is handed on as it came: a field the generated
// types say is `X | null` may be absent (Codex's schema lets an Option be left out), so readers
// test it with `== null`.
import type { ServerNotification } from "./generated/ServerNotification.js";
import {
  notificationMethods,
  notificationValidators,
  resultValidators,
  serverRequestMethods,
  serverRequestValidators,
  type ValidationIssue,
  type Validator,
} from "./generated/validators.js";
import type {
  CheckedNotification,
  CheckedNotificationMethod,
  CheckedRequestMethod,
  CheckedServerRequest,
  CodexNotification,
  CodexServerRequest,
  ServerRequestMessage,
} from "./messages.js";
import type { CodexMethod, CodexRequests } from "./requests.js";
import type { z } from "zod";
import { CodexRpcError } from "./errors.js";
import { JsonRpcCode } from "../json-rpc/index.js";

export type { ValidationIssue } from "./generated/validators.js";

/** What was read: the message, or why it cannot be handed on (a method this build does not know, or the first issue). */
export type Reading<T> = { kind: "read"; value: T } | { kind: "unknown" } | { kind: "invalid"; issue: ValidationIssue };

/** The validator of each request's result, as requests.ts types it (tsc fails here if the generated table drifts from it). */
const results: { readonly [M in CodexMethod]: Validator<CodexRequests[M]["result"]> } = resultValidators;

function isKnownNotification(method: string): method is ServerNotification["method"] {
  return notificationMethods.has(method);
}

function isCheckedNotification(method: string): method is CheckedNotificationMethod {
  return Object.hasOwn(notificationValidators, method);
}

function isKnownRequest(method: string): method is ServerRequestMessage["method"] {
  return serverRequestMethods.has(method);
}

function isCheckedRequest(method: string): method is CheckedRequestMethod {
  return Object.hasOwn(serverRequestValidators, method);
}

function firstIssue(issues: readonly ValidationIssue[]): ValidationIssue {
  return issues[0] ?? { path: "", message: "is not what Codex's schema describes" };
}

export function readNotification(method: string, params: unknown): Reading<CodexNotification> {
  if (!isKnownNotification(method)) return { kind: "unknown" };
  if (!isCheckedNotification(method)) return { kind: "read", value: { method, params } };
  const message = { method, params };
  const validate: Validator<CheckedNotification> = notificationValidators[method];
  const issues: ValidationIssue[] = [];
  return validate(message, issues) ? { kind: "read", value: message } : { kind: "invalid", issue: firstIssue(issues) };
}

export function readServerRequest(method: string, params: unknown): Reading<CodexServerRequest> {
  if (!isKnownRequest(method)) return { kind: "unknown" };
  if (!isCheckedRequest(method)) return { kind: "read", value: { method, params } };
  const message = { method, params };
  const validate: Validator<CheckedServerRequest> = serverRequestValidators[method];
  const issues: ValidationIssue[] = [];
  return validate(message, issues) ? { kind: "read", value: message } : { kind: "invalid", issue: firstIssue(issues) };
}

export function readResult<M extends CodexMethod>(
  method: M,
  result: unknown,
): Exclude<Reading<CodexRequests[M]["result"]>, { kind: "unknown" }> {
  const validate = results[method];
  const issues: ValidationIssue[] = [];
  return validate(result, issues) ? { kind: "read", value: result } : { kind: "invalid", issue: firstIssue(issues) };
}

/** An issue as one line: where (a JSON pointer into the message's params or result) and what. */
export function describeIssue(issue: ValidationIssue): string {
  return `${issue.path || "(the whole value)"} ${issue.message}`;
}

/** What `schema` reads of a result, or a CodexRpcError saying it is not what was expected. */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, method: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new CodexRpcError(
      `codex app-server answered ${method} with an unexpected shape: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      JsonRpcCode.InternalError,
    );
  }
  return parsed.data;
}
