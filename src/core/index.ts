// Public surface of the core: the agent, the feature API and the session, which every feature plugs into.
export { createAgent, DEFAULT_SETTINGS, type Agent, type AgentOptions, type AgentState, type SignInGate } from "./agent.js";
export type { AgentServices, RequestRoute, SessionFeature, SessionOpening, SessionOpenKind } from "./feature-api.js";
export { route } from "./request-routes.js";
export { AcpSession, type ThreadSettings } from "./session/session.js";
