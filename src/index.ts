// codex-cli-acp: the bin. In serve mode (no arguments) stdout carries ACP only.
// Start-up order matters: codex is spawned first, then the ACP side is loaded,
// so the two overlap (scripts/bench measures spawn -> initialize).
import module from "node:module";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { VERSION, privateCacheDir, readConfig } from "./config/index.js";
import { logEarlyPhases, markEarlyPhase, markPhase } from "./log/timings.js";
// Static, not imported on demand: two awaited imports held codex's spawn back 13-22 ms (bench
// timeline "main" -> "codex spawned"); both are small and free of heavy dependencies.
import { locateCodex } from "./codex/locate.js";
import { spawnAppServer } from "./codex/spawn.js";


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
  if (first === "login") {
    // The bundled codex (not whatever `codex` is on PATH), in this terminal, with its own prompts.
    const [{ codexLaunch, launchOptions }, { spawn }] = await Promise.all([import("./codex/spawn.js"), import("node:child_process")]);
    const launch = codexLaunch(locateCodex(), argv, process.env);
    const child = spawn(launch.file, launch.args, { stdio: "inherit", ...launchOptions(launch) });
    return new Promise<number>((resolve) => {
      child.on("error", (err) => {
        process.stderr.write(`codex-cli-acp: cannot run codex: ${err.message}\n`);
        resolve(1);
      });
      child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  }
  if (first !== undefined) {
    process.stderr.write(`codex-cli-acp: unknown argument ${JSON.stringify(first)}\n\n${await help()}`);
    return 2;
  }
  // V8 doubles its young generation under a burst of allocation (up to 2 x 16 MiB) and keeps it:
  // a long-lived editor process then sits 20-40 MiB higher for good. Not growing it costs more
  // frequent (cheap) scavenges; measured (npm run bench, fuzz test): RSS while streaming 105 ->
  // 85 MB, after hostile input +50-60 -> +13-50 MiB, throughput unchanged. A heap-sizing flag
  // (--max-semi-space-size) cannot be set after start; this growth factor is read as it grows.
  markEarlyPhase("main");
  setFlagsFromString("--semi-space-growth-factor=1");
  enableCompileCache();
  // Spawn codex first (tiny modules only), so it boots while the ACP side loads.
  const config = readConfig();
  const codexArgs = config.codexArgs;
  let prestarted: ReturnType<typeof spawnAppServer> | undefined;
  try {
    prestarted = spawnAppServer(locateCodex(), { args: codexArgs });
  } catch {
    // No codex binary: host.start() logs why, and session/new answers with that message.
  }
  markEarlyPhase("codex spawned");
  const [{ log }, { CodexHost }] = await Promise.all([import("./log/index.js"), import("./codex/index.js")]);
  markEarlyPhase("logger and codex client loaded");
  logEarlyPhases(log);
  const host = new CodexHost(
    {
      args: codexArgs,
      prestarted,
      clientInfo: { name: "codex-cli-acp", title: "Codex CLI ACP adapter", version: VERSION },
      ...(config.hangMs ? { hangMs: config.hangMs } : {}),
      ...(config.deadlineMs ? { deadlineMs: config.deadlineMs } : {}),
    },
    log,
  );
  host.start();
  // The catalog the file tools give Codex's threads (src/codex/catalog.ts) depends on no client:
  // its file work (a private temp dir, the cached copy linked in) runs on libuv's threads while the
  // ACP side loads, where it sat on the first session/new (bench timeline: prepared file-tools).
  void host.catalogWithoutNativePatch().catch(() => undefined);
  const { serveStdio } = await import("./app.js");
  markPhase(log, "ACP side loaded");
  await serveStdio(host, log);
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
 * (dist/transcripts.js, scripts/build.mjs) and never part of the agent's module graph; the
 * specifier is computed so the bundler keeps it apart.
 */
async function runTranscriptTool(argv: string[]): Promise<number> {
  const tool: unknown = await import(new URL("./transcripts.js", import.meta.url).href);
  const run = tool && typeof tool === "object" && "runTranscriptCli" in tool && typeof tool.runTranscriptCli === "function" ? (tool.runTranscriptCli as (argv: string[]) => unknown) : undefined;
  if (!run) {
    process.stderr.write("codex-cli-acp: this build has no transcript runner (dist/transcripts.js)\n");
    return 1;
  }
  const code = await run(argv);
  return typeof code === "number" ? code : 1;
}

/**
 * Node 22.8+ keeps V8's compiled code of the modules loaded after this call on disk and reuses
 * it at the next start (measured on Node 22.23: spawn -> initialize 176-179 -> 166-169 ms); older
 * Node has no such API, and nothing happens. Kept in this user's private cache directory, not
 * Node's default (a shared temp directory). NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
function enableCompileCache(): void {
  const enable = (module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  if (typeof enable !== "function") return;
  const dir = privateCacheDir();
  if (dir !== undefined) enable(path.join(dir, "compile"));
}
