// A copy of the model catalog in effect with Codex's native apply_patch turned off.
//
// Codex offers the model its own apply_patch (which writes the disk behind the editor's back)
// whenever the model's catalog entry has an `apply_patch_tool_type`; `include_apply_patch_tool`
// does not change that (verified with 0.169). A per-thread `config.model_catalog_json` that
// points at a catalog whose models have `apply_patch_tool_type: null` removes the tool for that
// thread only. The catalog in effect is what `codex debug models` prints under the same
// CODEX_HOME and `-c` overrides (the user's own `model_catalog_json` when set, else Codex's);
// everything else of it is kept, so the model list and every model's behaviour stay the same.
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../log/index.js";
import type { CodexCommand } from "./locate.js";

const catalogSchema = z.looseObject({ models: z.array(z.looseObject({ slug: z.string() })) });

/** How long `codex debug models` may take (it may refresh a remote list) before the bundled catalog is used. */
const DEBUG_MODELS_TIMEOUT_MS = 8_000;

export type DerivedCatalog = { path: string; slugs: string[]; source: "in-effect" | "bundled"; dispose(): Promise<void> };

/** The `-c`/`--enable`/`--disable` arguments of the app-server's arguments (what `debug models` also takes). */
export function configOverrides(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if ((a === "-c" || a === "--config" || a === "--enable" || a === "--disable") && i + 1 < args.length) out.push(a, args[++i]!);
    else if (/^--(config|enable|disable)=/.test(a) || (a.startsWith("-c") && a.length > 2)) out.push(a);
  }
  return out;
}

function run(command: CodexCommand, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command.file,
      [...command.args, ...args],
      { env, maxBuffer: 64 * 1024 * 1024, timeout: DEBUG_MODELS_TIMEOUT_MS, windowsHide: true },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

/** Derives the catalog into a private temporary directory; `dispose` removes it. */
export async function deriveCatalogWithoutNativePatch(opts: {
  command: CodexCommand;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  log: Logger;
}): Promise<DerivedCatalog> {
  const env = opts.env ?? process.env;
  const overrides = configOverrides(opts.args);
  let source: DerivedCatalog["source"] = "in-effect";
  let raw: string;
  try {
    raw = await run(opts.command, [...overrides, "debug", "models"], env);
  } catch (err) {
    opts.log.warn({ reason: err instanceof Error ? err.message.slice(0, 300) : String(err) }, "codex debug models failed; deriving from the bundled catalog");
    source = "bundled";
    raw = await run(opts.command, [...overrides, "debug", "models", "--bundled"], env);
  }
  const catalog = catalogSchema.parse(JSON.parse(raw));
  const derived = { ...catalog, models: catalog.models.map((m) => ({ ...m, apply_patch_tool_type: null })) };
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "codex-cli-acp-catalog-")); // 0700: only this user
  const file = path.join(dir, "models.json");
  await fs.writeFile(file, JSON.stringify(derived), { mode: 0o600 });
  const slugs = catalog.models.map((m) => m.slug);
  opts.log.debug({ file, source, models: slugs.length }, "model catalog without the native apply_patch written");
  return { path: file, slugs, source, dispose: () => fs.rm(dir, { recursive: true, force: true }) };
}
