// Types of scripts/lazy-acp-schemas.mjs (a plain script the build imports), for its tests.
import type { Plugin } from "esbuild";

export function lazifyZodSchemas(source: string, file?: string): string;
export const lazyAcpSchemas: Plugin;
