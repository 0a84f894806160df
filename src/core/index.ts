export { serveStdio } from "./serve.js";
export { authMethods } from "../sign-in/methods.js";
export { createAgent, DEFAULT_SETTINGS, type Agent, type AgentOptions, type AgentState } from "./agent.js";
export type { AgentServices, RequestRoute, SessionFeature, SessionOpening, SessionOpenKind } from "./feature-api.js";
export { route } from "./request-routes.js";
export { AcpSession, type ThreadSettings } from "./session/session.js";
