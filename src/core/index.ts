// Public surface of the core: the agent, the feature API and the session, which every feature plugs into.
export {
  createAgent,
  DEFAULT_SETTINGS,
  type Agent,
  type AgentOptions,
  type AgentState,
  type SignInGate,
} from "./agent.js";
export type { AgentServices, RequestRoute, SessionFeature, SessionOpening, SessionOpenKind } from "./feature-api.js";
export { route } from "./request-routes.js";
export { AcpSession, type ThreadSettings } from "./session/session.js";
export { batchedStdout } from "./transport/stdout.js";
export { keepServingOnFault, stopSignal } from "./transport/last-resort.js";
export { asksForV2, peekInitialize } from "./transport/protocol-choice.js";
export { holdEndForAnswers } from "./transport/last-answers.js";
export { askPermission, type Choice } from "./permission.js";
export {
  collaborationParams,
  keptTurnParams,
  mcpServerNames,
  withMcpServers,
  type OpenedPolicy,
} from "./session/thread-config.js";
export {
  CUSTOM_MODE,
  DEFAULT_MODE,
  availableModes,
  customPolicy,
  modeName,
  modePreset,
  modeState,
  presetOfSettings,
  presetSettings,
  sandboxPolicyOf,
  setMode,
  writeRuleOf,
  type ModePreset,
} from "./session/modes.js";
export { clientDisplay } from "./agent.js";
export { NO_TURN } from "./session/turn-runner.js";
export { type AgentHandle, type SessionModelState } from "./feature-api.js";
export { setThreadName, signOut } from "./codex-ops.js";
export {
  authRequired,
  internalError,
  invalidParams,
  invalidRequest,
  sessionNotFound,
  shown,
  toRequestError,
  withoutSecrets,
  type RequestError,
} from "./errors.js";
export { type ModeId } from "./session/session.js";
export { ThreadMemory } from "./thread-memory.js";
export { askClient } from "./ask.js";
export { toUserInput } from "./prompt.js";
export { TITLE_MAX, deriveTitle, isoTime, threadTitle } from "./session/titles.js";
