export { serveStdio } from "./serve.js";
export { createAgent, AUTH_METHODS, type AgentOptions, type AgentState } from "./agent.js";
