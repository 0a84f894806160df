// The agent's state: what initialize advertises, the client's capabilities, the open sessions.
// Only the core writes it (tests/unit/architecture.test.ts); the features, stored sessions and
// sign-in read it as ReadonlyAgentState and change it through the agent: advertise (the feature
// API's capability hooks), withdrawSession and restoreSession.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { SessionFeature } from "./feature-api.js";
import type { AcpSession } from "./session/session.js";

export type AgentState = {
  clientCapabilities: acp.ClientCapabilities;
  /** What initialize advertises: each part advertises its own (only what works), merged here. */
  agentCapabilities: acp.AgentCapabilities;
  sessions: Map<string, AcpSession>;
};

/** The agent's state as everything outside the core sees it. */
export type ReadonlyAgentState = {
  readonly clientCapabilities: Readonly<acp.ClientCapabilities>;
  readonly agentCapabilities: Readonly<acp.AgentCapabilities>;
  readonly sessions: ReadonlyMap<string, AcpSession>;
};

/** What a part of the agent advertises in initialize: a feature's two capability hooks. */
export type CapabilityPart = Pick<SessionFeature, "sessionCapabilities" | "agentCapabilities">;

/** Merges a part's capabilities into what initialize advertises (`sessionCapabilities` and `auth` field by field). */
export function mergeCapabilities(into: acp.AgentCapabilities, part: CapabilityPart): void {
  if (part.sessionCapabilities)
    into.sessionCapabilities = { ...into.sessionCapabilities, ...part.sessionCapabilities() };
  if (!part.agentCapabilities) return;
  const top = part.agentCapabilities();
  Object.assign(into, top, top.auth ? { auth: { ...into.auth, ...top.auth } } : {});
}

/** Takes a session out of the table, if the table holds it under its id. */
export function withdrawSession(sessions: Map<string, AcpSession>, session: AcpSession): void {
  if (sessions.get(session.id) === session) sessions.delete(session.id);
}

/** Puts a withdrawn session back, unless it closed meanwhile or another holds its id now. */
export function restoreSession(sessions: Map<string, AcpSession>, session: AcpSession): void {
  if (!session.isClosed && !sessions.has(session.id)) sessions.set(session.id, session);
}
