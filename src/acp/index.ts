export { serveStdio } from "./serve.js";
export { authMethods } from "./auth.js";
export { createAgent, DEFAULT_SETTINGS, type Agent, type AgentOptions, type AgentState } from "./agent.js";
export type { AgentServices, ServerRequestHandler, SessionFeature, SessionOpening, SessionOpenKind } from "./features.js";
export { AcpSession, type ThreadSettings } from "./session.js";
