// Public surface of src/startup: how the bin sets V8 up for an editor's long-lived agent: its code
// loaded through V8's code cache (a quicker start), and its young generation's size.
export { loadWithCodeCache, type CachedScript } from "./code-cache.js";
export { keepYoungGenerationSmall, youngGeneration, type YoungGeneration } from "./young-generation.js";
