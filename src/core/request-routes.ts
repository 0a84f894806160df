// Who answers a Codex server request (approvals, questions, MCP elicitations): the feature that
// claims its route. A route is the request's method, made more specific for MCP elicitations
// (by the server that asks, or as a tool approval), and the most specific claim answers. Two
// features claiming one route is an error when the agent is made, so the answer never depends on
// the order of the feature list.
import {
  toolApprovalMetaSchema,
  type CodexServerAnswer,
  type CodexServerAnswers,
  type CodexServerRequest,
} from "../codex/index.js";
import type { AgentServices, RequestRoute, SessionFeature } from "./feature-api.js";
import type { AcpSession } from "./session/session.js";

type Method = CodexServerRequest["method"] & keyof CodexServerAnswers;
type RequestOf<M extends Method> = Extract<CodexServerRequest, { method: M }>;
/** An elicitation's narrower routes: one MCP server's, or Codex's approval of an MCP tool call. */
export type RouteQualifier = "toolApproval" | { server: string };

/**
 * Claims `method` (narrowed by `qualifier`) for `answer`, which gets the request typed by its
 * method and must give that request's own answer (not any request's).
 */
export function route<M extends Method>(
  method: M,
  answer: (
    session: AcpSession,
    request: RequestOf<M>,
    services: AgentServices,
    withdrawn: AbortSignal,
  ) => Promise<CodexServerAnswers[M]>,
  qualifier?: RouteQualifier,
): RequestRoute {
  const key =
    qualifier === undefined
      ? method
      : qualifier === "toolApproval"
        ? `${method}#toolApproval`
        : `${method}#server=${qualifier.server}`;
  const isMethod = (request: CodexServerRequest): request is RequestOf<M> => request.method === method;
  return {
    key,
    answer: (session, request, services, withdrawn) =>
      isMethod(request) ? answer(session, request, services, withdrawn) : undefined,
  };
}

/** A request's routes, most specific first. */
export function routeKeysOf(request: CodexServerRequest): string[] {
  if (request.method !== "mcpServer/elicitation/request") return [request.method];
  const keys = [`${request.method}#server=${request.params.serverName}`];
  if (toolApprovalMetaSchema.safeParse(request.params._meta).success) keys.push(`${request.method}#toolApproval`);
  keys.push(request.method);
  return keys;
}

export class RequestRouter {
  private readonly routes = new Map<string, { feature: string; route: RequestRoute }>();

  constructor(features: readonly SessionFeature[]) {
    for (const feature of features) {
      for (const claimed of feature.requestRoutes ?? []) {
        const taken = this.routes.get(claimed.key);
        if (taken)
          throw new Error(`the codex request ${claimed.key} is claimed by both ${taken.feature} and ${feature.name}`);
        this.routes.set(claimed.key, { feature: feature.name, route: claimed });
      }
    }
  }

  /** The answer of the feature that claims the request's most specific route; undefined if none does. */
  answer(
    session: AcpSession,
    request: CodexServerRequest,
    services: AgentServices,
    withdrawn: AbortSignal,
  ): Promise<CodexServerAnswer> | undefined {
    for (const key of routeKeysOf(request)) {
      const answered = this.routes.get(key)?.route.answer(session, request, services, withdrawn);
      if (answered) return answered;
    }
    return undefined;
  }
}
