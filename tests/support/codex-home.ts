// Test-side access to the hermetic CODEX_HOME builder (product code lives in src/fake-model).
export { createCodexHome, renderConfigToml, defaultCodexPath, FAKE_MODEL_SLUG, FAKE_API_KEY, type CodexHome, type CreateCodexHomeOptions } from "../../src/fake-model/index.js";
