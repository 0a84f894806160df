// Public surface of the fake Responses-API model and its hermetic CODEX_HOME builder
// (used by the tests and by the shipped `codex-cli-acp replay` command).
export {
  fakeModelScriptSchema,
  scriptedResponseSchema,
  scriptedItemSchema,
  parseFakeModelScript,
  splitDeltas,
  textResponse,
  toolCall,
  toolCallResponse,
  customToolCall,
  applyPatch,
  httpError,
  rateLimitHeaders,
  type RateLimitWindowHeaders,
  type FakeModelScript,
  type ScriptedResponse,
  type ScriptedItem,
  type ScriptedUsage,
  type ResponseOptions,
} from "./script.js";
export { startFakeModel, type FakeModel, type RecordedRequest } from "./server.js";
export { responseEvents } from "./response-events.js";
export {
  createCodexHome,
  renderConfigToml,
  FAKE_MODEL_SLUG,
  FAKE_API_KEY,
  FAKE_SIGNED_IN_PROVIDER,
  type CodexHome,
  type CreateCodexHomeOptions,
} from "./codex-home.js";
export { defaultCodexPath } from "./codex-path.js";
