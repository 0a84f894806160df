// DEFAULT_AUTH_REQUEST, the official adapter's convention (agentclientprotocol/codex-acp): an
// ACP authenticate request as JSON, e.g. {"methodId":"api-key"} or {"methodId":"openai-api-key",
// "_meta":{"api-key":{"apiKey":"sk-..."}}}, that the agent carries out itself when a session
// needs a sign-in, so the client never has to call `authenticate`. Read once, checked here; what
// is wrong with it never echoes the value (it may hold a key).
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { acceptedMethodIds, routeOf, runsInTerminal } from "./methods.js";

export const DEFAULT_AUTH_REQUEST = "DEFAULT_AUTH_REQUEST";

const authenticateRequestSchema = z.looseObject({
  methodId: z.string().min(1),
  _meta: z.record(z.string(), z.unknown()).nullish(),
});

/** The request to sign in with, or why the variable cannot be used; undefined when it is not set. */
export type DefaultAuthRequest =
  | { usable: true; request: acp.AuthenticateRequest }
  | { usable: false; problem: string }
  | undefined;

export function readDefaultAuthRequest(env: NodeJS.ProcessEnv = process.env): DefaultAuthRequest {
  const text = env[DEFAULT_AUTH_REQUEST]?.trim();
  if (!text) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text.
    return {
      usable: false,
      problem: 'it is not JSON (an authenticate request is expected, e.g. {"methodId":"openai-api-key"})',
    };
  }
  const parsed = authenticateRequestSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "the value"}: ${issue.message}`)
      .join("; ");
    return { usable: false, problem: `it is not an authenticate request (${issues})` };
  }
  const route = routeOf(parsed.data.methodId);
  if (!route)
    return { usable: false, problem: `its methodId is not one this agent accepts (${acceptedMethodIds().join(", ")})` };
  if (runsInTerminal(route.method))
    return { usable: false, problem: "its methodId is a terminal method, which only the editor can run" };
  const { methodId, _meta } = parsed.data;
  return { usable: true, request: { methodId, ...(_meta ? { _meta } : {}) } };
}
