// Public surface of src/startup: what makes the bin's start quicker than Node alone would.
export { loadWithCodeCache, type CachedScript } from "./code-cache.js";
export { keepYoungGenerationSmall, youngGeneration, type YoungGeneration } from "./young-generation.js";
