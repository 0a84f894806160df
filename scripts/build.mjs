// Bundles the agent into dist/ with esbuild. Why a bundle: module resolution and
// parsing of node_modules dominate start-up; one pre-linked file per lazily loaded
// chunk answers `initialize` much sooner (measured in scripts/bench).
import { build } from "esbuild";
import { readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { lazyAcpSchemas } from "./lazy-acp-schemas.mjs";

/**
 * zod re-exports each of its ~40 locales through a namespace (`z.locales`) that a bundler must
 * keep whole: 370 KB of the 760 KB zod chunk, parsed at every start (importing zod bundled:
 * 23 ms with them, 15 ms without). Nothing here uses a locale other than English, zod's
 * default, so the namespace holds English alone.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](core|classic)[\\/]/.test(args.importer)
        ? { path: "zod-locales", namespace: "zod-english-only" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: fileURLToPath(new URL("..", import.meta.url)),
    }));
  },
};

const version = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")).version;
/** What both builds share: one bundle per entry for Node 20, the codex binary located at run time. */
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  // Whitespace and comments out, names kept (stack traces stay readable): 1.6 -> 1.2 MB of source
  // that V8 scans at each start and keeps in the heap. Measured (.bench, medians of 15): spawn ->
  // initialize 184 -> 177 ms, RSS 68.0 -> 66.7 MB. Also drops the one non-Latin-1 character (an
  // em dash in a zod comment) that made a 390 KB chunk a two-byte string (780 KB of heap).
  minifyWhitespace: true,
  minifySyntax: true,
  // The codex binary is located on disk at run time, never bundled.
  external: ["@openai/codex"],
  plugins: [zodEnglishOnly, lazyAcpSchemas],
  define: { __CODEX_ACP_VERSION__: JSON.stringify(version) },
  logLevel: "warning",
};

/**
 * One CommonJS script in dist/ for `entryPoints`. import.meta.url (src/codex/locate.ts) has no
 * CommonJS form: the script's own URL instead, as `urlName`, set after `opening` (a shebang, or
 * the start of the function the agent's file is).
 */
function commonJsScript(entryPoints, urlName, { opening, footer }) {
  return build({
    ...common,
    entryPoints,
    outdir: "dist",
    format: "cjs",
    metafile: true,
    define: { ...common.define, "import.meta.url": urlName },
    banner: { js: `${opening}"use strict"; const ${urlName} = require("node:url").pathToFileURL(__filename).href;` },
    ...(footer ? { footer } : {}),
  });
}

await rm(new URL("../dist", import.meta.url), { recursive: true, force: true });
// The agent (everything serve mode runs once codex is spawned, src/serve.ts): one CommonJS script,
// loaded by the bin through V8's code cache (src/startup/code-cache.ts: Node 20 has no compile
// cache for modules). The file is exactly the function the loader compiles, so the positions V8
// reports (stack traces, coverage) are the file's own. The ACP v2 side stays lazy inside it:
// esbuild wraps a bundled dynamic import's modules in a function run at the first import().
const agent = await commonJsScript({ agent: "src/serve.ts" }, "__agentUrl", {
  opening: "(function (exports, require, module, __filename, __dirname) { ",
  footer: { js: "})" },
});
// The bin (its start-up path: config, locating and spawning codex, loading dist/agent.js): one
// CommonJS script. Node starts a CommonJS entry without its ES module loader: measured, the bin's
// first line ran ~10 ms sooner (bench timeline "main" 79 -> 68 ms), codex's spawn with it. dist/ holds
// a package.json saying so (the repository's says "module"), and the ES modules beside it are .mjs.
const bin = await commonJsScript({ index: "src/index.ts" }, "__binUrl", { opening: "#!/usr/bin/env node\n" });
await writeFile(new URL("../dist/package.json", import.meta.url), `${JSON.stringify({ type: "commonjs" })}\n`);
// The transcript runner (`record` / `replay`), which the bin loads by a computed URL only when
// asked: none of the tooling is in the agent's module graph. ES modules, split by what each
// command loads.
const tools = await build({
  ...common,
  entryPoints: { transcripts: "tools/transcripts/index.ts" },
  metafile: true,
  outdir: "dist",
  splitting: true,
  format: "esm",
  outExtension: { ".js": ".mjs" },
  banner: {
    js: "import { createRequire as __cjsRequire } from 'node:module'; const require = __cjsRequire(import.meta.url);",
  },
});
// What each output is made of (tests/e2e/bundle.test.ts checks the agent's part); not shipped.
await writeFile(
  new URL("../dist/meta.json", import.meta.url),
  JSON.stringify(
    Object.fromEntries(
      ["inputs", "outputs"].map((k) => [k, Object.assign({}, ...[agent, bin, tools].map((b) => b.metafile[k]))]),
    ),
  ),
);
