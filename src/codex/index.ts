export { AppServerClient, type ThreadListener } from "./client.js";
export {
  CodexExitedError,
  CodexMethodUnsupportedError,
  CodexRpcError,
  CodexStartError,
  type ExitInfo,
} from "./errors.js";
export { configOverrides, deriveCatalogWithoutNativePatch, type DerivedCatalog } from "./catalog.js";
export { codexHomeOf, configFingerprint, configReadParams } from "./config-files.js";
export { CodexHost, type CodexHostOptions } from "./host/host.js";
export { userTurnsHooksOff, UserConfigReader, type ConfigSource } from "./user-config.js";
export { locateCodex, type CodexCommand } from "./locate.js";
export * from "./schemas.js";
export {
  codexLaunch,
  launchOptions,
  prestartAppServer,
  spawnAppServer,
  type CodexClientInfo,
  type EarlyConfigRead,
  type PrestartedCodex,
} from "./spawn.js";
// Codex's own protocol types, generated from the pinned binary (npm run codex:types).
export type * as v2 from "./generated/v2/index.js";
export type { CheckedNotification, CheckedServerRequest, CodexNotification, CodexServerRequest } from "./messages.js";
export {
  refusalFor,
  toolApprovalMetaSchema,
  type CodexMethod,
  type CodexRequests,
  type CodexServerAnswer,
  type CodexServerAnswers,
  type ToolApprovalMeta,
} from "./requests.js";
export type { JsonValue } from "./generated/serde_json/JsonValue.js";
export type { ModeKind } from "./generated/ModeKind.js";
export { jsonFields, objectFields } from "./json.js";
