// The one place errors become ACP (JSON-RPC) errors: named factories for what the agent says
// itself, and toRequestError for what it meets (Codex crashes, Codex errors, anything else).
// Codes: JSON-RPC's own and ACP's (auth required, resource not found), named in src/json-rpc.
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { CodexExitedError, CodexRpcError, CodexStartError } from "../codex/index.js";
import { replaceSecretText } from "../log/index.js";
import { textHead } from "../text/index.js";
import { AcpCode, JsonRpcCode } from "../json-rpc/index.js";

export { RequestError };

/** A parameter the client sent is wrong; `data` names it. */
export function invalidParams(data: Record<string, unknown>, message: string): RequestError {
  return RequestError.invalidParams(
    Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? shown(v) : v])),
    message,
  );
}

/** The longest part of a client's value an error quotes back. */
const SHOWN_CHARACTERS = 120;

/** A client's value as an error quotes it: a value of any size (a 200 KB id) is not sent back whole. */
export function shown(value: string): string {
  // Never half an emoji: a lone surrogate makes a client's JSON parser (Zed's) drop the answer.
  return value.length <= SHOWN_CHARACTERS
    ? value
    : `${textHead(value, SHOWN_CHARACTERS)}… (${value.length} characters)`;
}

/** The request cannot be served in the session's present state (closed, busy). */
export function invalidRequest(message: string): RequestError {
  return RequestError.invalidRequest(undefined, message);
}

/** A session that is not open (or not stored), as ACP wants it: -32002 with data.sessionId. */
export function sessionNotFound(sessionId: string, why: string): RequestError {
  return new RequestError(AcpCode.ResourceNotFound, `Session not found: ${why}`, { sessionId });
}

/** The client must sign in first (ACP's AuthRequired), with what to do. */
export function authRequired(message: string, data?: Record<string, unknown>): RequestError {
  return RequestError.authRequired(data, message);
}

/** The agent failed doing what was asked; `data` carries what helps a client explain it. */
export function internalError(message: string, data?: Record<string, unknown>): RequestError {
  return new RequestError(JsonRpcCode.InternalError, message, data);
}

/**
 * Text that may quote a credential (a provider's "Incorrect API key provided: sk-…wxyz", a bearer
 * header), with every key- or token-like word replaced, for a log or an answer.
 */
export function withoutSecrets(text: string): string {
  return replaceSecretText(text, () => "…");
}

/** Codex stopped during a turn: what a user reads (nothing is lost; the next prompt resumes the thread). */
export function childDiedMessage(reason: string): string {
  return `Codex stopped unexpectedly (${reason}) during this turn. Nothing is lost: send a prompt again and the conversation continues in a new Codex process.`;
}

/** Codex stopped under any other request (a list, a load): nothing of a turn, and the same request works again. */
function codexStoppedMessage(reason: string): string {
  return `Codex stopped unexpectedly (${reason}) while answering this request. Try again: a new Codex process takes over.`;
}

/** Codex's invalid-params data for the user's input (`input_error_code`, e.g. "input_too_large", with its limits). */
function isInputError(data: unknown): data is Record<string, unknown> {
  return (
    typeof data === "object" &&
    data !== null &&
    typeof (data as { input_error_code?: unknown }).input_error_code === "string"
  );
}

/** Any error met while serving a request, as the ACP error the client receives. */
export function toRequestError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  if (err instanceof CodexStartError) return internalError(err.message, { stderr: [...err.stderr] });
  if (err instanceof CodexExitedError) return internalError(codexStoppedMessage(err.exit.reason));
  // What the client sent is what Codex refused (a prompt over its length limit): the client's to fix.
  if (err instanceof CodexRpcError && err.code === JsonRpcCode.InvalidParams && isInputError(err.data))
    return invalidParams(err.data, `Codex: ${err.message}`);
  if (err instanceof CodexRpcError) return internalError(`Codex: ${err.message}`);
  return internalError(err instanceof Error ? err.message : String(err));
}
