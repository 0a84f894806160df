// codex-cli-acp: the bin. In serve mode (no arguments) stdout carries ACP only.
// Start-up order matters: codex is spawned first, then the agent (dist/agent.js) is loaded through
// V8's code cache, so the two overlap (scripts/bench measures spawn -> first session ready).
import { fileURLToPath } from "node:url";
import { CODEX_CLIENT_INFO, VERSION, privateCacheDir, readConfig } from "./config/index.js";
import { markEarlyPhase } from "./log/timings.js";
import {
  keepYoungGenerationSmall,
  loadWithCodeCache,
  youngGeneration,
  type CachedScript,
  type YoungGeneration,
} from "./startup/index.js";
// Static, not imported on demand: two awaited imports held codex's spawn back 13-22 ms (bench
// timeline "main" -> "codex spawned"); both are small and free of heavy dependencies.
import { locateCodex } from "./codex/locate.js";
import { prestartAppServer, type EarlyConfigRead, type PrestartedCodex } from "./codex/spawn.js";
import { codexHomeOf, configFingerprint } from "./codex/config-files.js";

/**
 * The folder an editor starts the agent in (Zed: the project's root), which its first session/new
 * usually opens: codex is asked for its configuration as it spawns (spawn.ts), with the state of the
 * files that configuration comes from now, so a later change is not answered from it.
 */
function earlyConfigRead(): EarlyConfigRead | undefined {
  try {
    const cwd = process.cwd();
    return { cwd, fingerprint: configFingerprint(cwd, codexHomeOf()) };
  } catch {
    // A folder gone or a file we cannot look at: the first session asks codex itself.
    return undefined;
  }
}

async function help(): Promise<string> {
  const [{ helpText }, { realpathSync }] = await Promise.all([import("./help.js"), import("node:fs")]);
  const bin = process.argv[1] ?? "codex-cli-acp";
  let real = bin;
  try {
    real = realpathSync(bin);
  } catch {
    // Started some other way (a wrapper, a missing path): show the name as given.
  }
  return helpText(process.execPath, real);
}

async function main(argv: string[]): Promise<number | undefined> {
  const [first] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(await help());
    return 0;
  }
  if (first === "--version" || first === "-v") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === "record" || first === "replay") return runTranscriptTool(argv);
  if (first === "login")
    return (await import("./sign-in/terminal-login.js")).runLogin(argv.slice(1), (text) => process.stdout.write(text));
  if (first !== undefined) {
    process.stderr.write(`codex-cli-acp: unknown argument ${JSON.stringify(first)}\n\n${await help()}`);
    return 2;
  }
  // V8's young generation stays at its first size unless a history load widens it (young-generation.ts).
  markEarlyPhase("main");
  // A person who ran it at a terminal: stdin carries ACP messages from an editor, not typing.
  if (process.stdin.isTTY)
    process.stderr.write(
      "codex-cli-acp: an ACP agent, waiting for an editor's messages on stdin. Point your editor at this command (codex-cli-acp --help shows how); Ctrl-C to quit.\n",
    );
  keepYoungGenerationSmall();
  // One per process: the agent widens it for a history load, and the code cache is written as loaded.
  const young = youngGeneration();
  // Spawn codex first (tiny modules only), its initialize sent, so it boots while the agent loads.
  const config = readConfig();
  const codexArgs = config.codexArgs;
  let prestarted: PrestartedCodex | undefined;
  try {
    prestarted = prestartAppServer(locateCodex(), CODEX_CLIENT_INFO, { args: codexArgs, configFor: earlyConfigRead });
  } catch {
    // No codex binary: host.start() logs why, and session/new answers with that message.
  }
  markEarlyPhase("codex spawned");
  const agent = loadAgent(young);
  await agentOf(agent.exports).serve(config, prestarted, young);
  // A process that ended before the timer (a client that only initialized, a test) keeps it now.
  agent.keepCompiledCode();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code ?? 0),
  (err: unknown) => {
    process.stderr.write(`codex-cli-acp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

/**
 * `record` / `replay`: the transcript runner is a tool beside the agent, bundled on its own
 * (dist/transcripts.mjs, scripts/build.mjs) and never part of the agent's module graph; the
 * specifier is computed so the bundler keeps it apart.
 */
async function runTranscriptTool(argv: string[]): Promise<number> {
  const tool: unknown = await import(new URL("./transcripts.mjs", import.meta.url).href);
  const run =
    tool && typeof tool === "object" && "runTranscriptCli" in tool && typeof tool.runTranscriptCli === "function"
      ? (tool.runTranscriptCli as (argv: string[]) => unknown)
      : undefined;
  if (!run) {
    process.stderr.write("codex-cli-acp: this build has no transcript runner (dist/transcripts.mjs)\n");
    return 1;
  }
  const code = await run(argv);
  return typeof code === "number" ? code : 1;
}

type Agent = typeof import("./serve.js");

/**
 * The agent: dist/agent.js beside this bin (scripts/build.mjs), through V8's code cache
 * (src/startup). A start without a usable cache writes one 3 s in or as it ends, whichever is
 * first: by then the editor's initialize and first session have run, and the functions they
 * compiled are in it (V8 compiles a function when first called).
 */
function loadAgent(young: YoungGeneration): CachedScript {
  const loaded = loadWithCodeCache(fileURLToPath(new URL("./agent.js", import.meta.url)), {
    cacheDir: privateCacheDir(),
    asLoaded: (make) => young.asLoaded(make),
  });
  markEarlyPhase(`agent loaded (code cache ${loaded.cache})`);
  setTimeout(() => loaded.keepCompiledCode(), KEEP_COMPILED_CODE_AFTER_MS).unref();
  return loaded;
}

/** The agent's exports, checked: a dist/ from another build (or a broken copy) says so instead of failing later. */
function agentOf(exports: unknown): Agent {
  if (typeof exports === "object" && exports !== null && "serve" in exports && typeof exports.serve === "function")
    return exports as Agent;
  throw new Error(
    "dist/agent.js exports no serve(): reinstall codex-cli-acp (this bin and the agent beside it are from different builds)",
  );
}

/** Long enough for an editor's initialize and first session/new (~0.3 s), short enough to happen in most processes. */
const KEEP_COMPILED_CODE_AFTER_MS = 3000;
