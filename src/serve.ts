// The agent once codex is spawned: the logger, the codex client and the ACP side, served on stdio.
// Its own bundle (dist/agent.js, a CommonJS script): the bin loads it through V8's code cache
// (src/startup), so the 1 MB of JavaScript it is made of is compiled once, not at every start.
import { CODEX_CLIENT_INFO, ignoredSettings, type AdapterConfig } from "./config/index.js";
import { logEarlyPhases, markPhase } from "./log/index.js";
import { log } from "./log/index.js";
import { CodexHost, type PrestartedCodex } from "./codex/index.js";
import { serveStdio } from "./app.js";
import type { YoungGeneration } from "./startup/index.js";
import { z } from "zod";

/**
 * Serves ACP on stdio with `prestarted` as codex, its initialize already sent (undefined: no binary
 * found; the host says why), and the bin's hold on V8's young generation (one per process).
 */
export async function serve(
  config: AdapterConfig,
  prestarted: PrestartedCodex | undefined,
  young: YoungGeneration,
): Promise<void> {
  // zod compiles a parser (new Function) for an object schema built while this is unset, at its
  // first parse. It is read when a schema is built: the ACP SDK's schemas, built at their first
  // parse (scripts/lazy-acp-schemas.mjs), are built after this and parse without one; those are the
  // messages the first session parses, on the path the user waits on. The adapter's own schemas,
  // built as their modules load, keep theirs. A/B, medians of 21: spawn -> initialize 159.0 ->
  // 152.6 ms, first session ready 209.2 -> 204.1; CPU per streamed delta unchanged (26.0 us both).
  z.config({ jitless: true });
  logEarlyPhases(log);
  const host = new CodexHost(
    {
      args: config.codexArgs,
      prestarted,
      // Located once, by the bin: the catalog and a restarted codex run the same binary.
      ...(prestarted ? { command: prestarted.command } : {}),
      clientInfo: CODEX_CLIENT_INFO,
      ...(config.hangMs ? { hangMs: config.hangMs } : {}),
      ...(config.deadlineMs ? { deadlineMs: config.deadlineMs } : {}),
    },
    log,
  );
  host.start();
  // The catalog the file tools give Codex's threads (src/codex/catalog.ts) depends on no client:
  // its file work (a private temp dir, the cached copy linked in) runs on libuv's threads while the
  // first messages are read, where it sat on the first session/new (bench timeline: prepared file-tools).
  void host.catalogWithoutNativePatch().catch(() => undefined);
  for (const ignored of ignoredSettings())
    log.warn(ignored, `${ignored.variable} cannot be used; using ${ignored.using}`);
  markPhase(log, "ACP side loaded");
  await serveStdio(host, log, young);
}
