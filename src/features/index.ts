// Public surface of src/features: what other folders may use.
export { titlesFeature } from "./titles.js";
export { promptSuggestionsFeature } from "./prompt-suggestions.js";
export { mcpServersFeature } from "./mcp-servers.js";
export { directoriesFeature } from "./directories.js";
export { questionsFeature } from "./questions.js";
export { mcpElicitationsFeature } from "./mcp-elicitations.js";
export { steeringFeature } from "./steering.js";
export { codexWarningsFeature } from "./codex-warnings.js";
export { subagentsFeature } from "./subagents.js";
export { systemPromptFeature } from "./system-prompt.js";
export { providersFeature } from "./providers.js";
