// Public surface of src/editor-files: the file-tools feature (the editor's fs/* behind an embedded
// MCP server). Its libraries (access/, patch/, contract/, endpoint/, command-changes/) have their own index.ts.
export { fileToolsFeature } from "./feature.js";
