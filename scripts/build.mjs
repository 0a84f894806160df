// Bundles the agent into dist/ with esbuild. Why a bundle: module resolution and
// parsing of node_modules dominate start-up; one pre-linked file per lazily loaded
// chunk answers `initialize` much sooner (measured in scripts/bench).
import { build } from "esbuild";
import { readFile, rm } from "node:fs/promises";

await rm(new URL("../dist", import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { index: "src/index.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  // The codex binary is located on disk at run time, never bundled.
  external: ["@openai/codex"],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cjsRequire } from 'node:module'; const require = __cjsRequire(import.meta.url);",
  },
  define: { __CODEX_ACP_VERSION__: JSON.stringify(JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")).version) },
  logLevel: "warning",
});
