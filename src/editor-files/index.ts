// Public surface of src/editor-files: what other folders may use.
export { fileToolsFeature } from "./feature.js";
