// Test-side access to the hermetic CODEX_HOME builder (its code lives in tools/fake-model).
export {
  createCodexHome,
  renderConfigToml,
  defaultCodexPath,
  FAKE_MODEL_SLUG,
  FAKE_API_KEY,
  type CodexHome,
  type CreateCodexHomeOptions,
} from "../../tools/fake-model/index.js";
