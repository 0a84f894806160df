export { AppServerClient, CodexExitedError, CodexRpcError, type ExitInfo, type ThreadListener } from "./client.js";
export { configOverrides, deriveCatalogWithoutNativePatch, type DerivedCatalog } from "./catalog.js";
export { CodexHost, type CodexHostOptions } from "./host.js";
export { locateCodex, type CodexCommand } from "./locate.js";
export * from "./schemas.js";
export { spawnAppServer } from "./spawn.js";
