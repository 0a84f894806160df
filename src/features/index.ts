// The features that are one module, for the composition root (src/app.ts) to register. The
// features that are folders (approvals/, commands/, config-options/, modes/, rate-limits/) are
// reached through their own index.ts. Features never import each other (the architecture test).
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
