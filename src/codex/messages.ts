// The types Codex's notifications and server requests reach the adapter with. Those whose params
// the adapter reads are checked by validators generated from Codex's JSON schema (validation.ts)
// and typed by its generated types; every other method of Codex's schema comes with its params
// typed unknown, so reading one is a `tsc` error until it is added to the lists of
// scripts/codex-types.mjs (and checked).
import type { ServerNotification } from "./generated/ServerNotification.js";
import type { ServerRequest } from "./generated/ServerRequest.js";
import type { notificationValidators, serverRequestValidators } from "./generated/validators.js";

export type CheckedNotificationMethod = keyof typeof notificationValidators;
export type CheckedRequestMethod = keyof typeof serverRequestValidators;

/** A notification the adapter reads: checked, typed by Codex's schema. */
export type CheckedNotification = Extract<ServerNotification, { method: CheckedNotificationMethod }>;

/** A notification as thread listeners get it: checked and typed, or another of Codex's methods with its params unknown. */
export type CodexNotification =
  | CheckedNotification
  | { method: Exclude<ServerNotification["method"], CheckedNotificationMethod>; params: unknown };

/** A server->client request without its JSON-RPC id (the client answers it). */
export type ServerRequestMessage = ServerRequest extends infer R
  ? R extends { id: unknown }
    ? Omit<R, "id">
    : never
  : never;

/** A server request the adapter reads to answer it: checked, typed by Codex's schema. */
export type CheckedServerRequest = Extract<ServerRequestMessage, { method: CheckedRequestMethod }>;

/** A server request as the adapter gets it: checked and typed, or another of Codex's with its params unknown (refused). */
export type CodexServerRequest =
  | CheckedServerRequest
  | { method: Exclude<ServerRequestMessage["method"], CheckedRequestMethod>; params: unknown };
