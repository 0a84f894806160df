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
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, promises as fs, readlinkSync, readSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { privateCacheDir } from "../config/index.js";
import type { Logger } from "../log/index.js";
import { codexHomeOf } from "./config-files.js";
import type { CodexCommand } from "./locate.js";
import { codexLaunch, launchOptions } from "./spawn.js";

const catalogSchema = z.looseObject({ models: z.array(z.looseObject({ slug: z.string() })) });

/** With a cached catalog, how long after start-up it is derived again. */
const REFRESH_DELAY_MS = 3_000;

/** How long `codex debug models` may take (it may refresh a remote list) before the bundled catalog is used. */
const DEBUG_MODELS_TIMEOUT_MS = 8_000;

/** `cached`: linked from the last launch's copy (derived again in the background), not derived now. */
export type DerivedCatalog = {
  path: string;
  cached: boolean;
  source: "in-effect" | "bundled";
  dispose(): Promise<void>;
};

/** The `-c`/`--enable`/`--disable` arguments of the app-server's arguments (what `debug models` also takes). */
export function configOverrides(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if ((a === "-c" || a === "--config" || a === "--enable" || a === "--disable") && i + 1 < args.length)
      out.push(a, args[++i]!);
    else if (/^--(config|enable|disable)=/.test(a) || (a.startsWith("-c") && a.length > 2)) out.push(a);
  }
  return out;
}

function run(command: CodexCommand, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const launch = codexLaunch(command, args, env);
    execFile(
      launch.file,
      launch.args,
      {
        env,
        maxBuffer: 64 * 1024 * 1024,
        timeout: DEBUG_MODELS_TIMEOUT_MS,
        windowsHide: true,
        ...launchOptions(launch),
      },
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- ExecFileException is an Error; Node's types build it with Omit<>, which hides that
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

/** The catalog in effect, as Codex prints it (falling back to its bundled one). */
async function catalogInEffect(
  command: CodexCommand,
  overrides: string[],
  env: NodeJS.ProcessEnv,
  log: Logger,
): Promise<{ raw: string; source: DerivedCatalog["source"] }> {
  try {
    return { raw: await run(command, [...overrides, "debug", "models"], env), source: "in-effect" };
  } catch (err) {
    // Not the message: it repeats the command line, whose -c overrides may hold secrets.
    const field = (name: string): unknown => (err && typeof err === "object" ? Reflect.get(err, name) : undefined);
    log.warn(
      { code: field("code") ?? null, signal: field("signal") ?? null, timedOut: field("killed") === true },
      "codex debug models failed; deriving from the bundled catalog",
    );
    return { raw: await run(command, [...overrides, "debug", "models", "--bundled"], env), source: "bundled" };
  }
}

function withoutNativePatch(raw: string): { json: string; slugs: string[] } {
  const catalog = catalogSchema.parse(JSON.parse(raw));
  const derived = { ...catalog, models: catalog.models.map((m) => ({ ...m, apply_patch_tool_type: null })) };
  return { json: JSON.stringify(derived), slugs: catalog.models.map((m) => m.slug) };
}

/** Cached catalogs kept (newest first): one per codex binary, home and config.toml edit would otherwise pile up. */
export const CATALOG_CACHE_ENTRIES = 8;

/** Removes all but the `keep` most recently written catalogs of a cache directory. */
export async function pruneCatalogCache(dir: string, keep = CATALOG_CACHE_ENTRIES): Promise<void> {
  const names = (await fs.readdir(dir)).filter((n) => /^catalog-[0-9a-f]+\.json$/.test(n));
  if (names.length <= keep) return;
  const dated = await Promise.all(
    names.map(async (n) => ({ n, t: (await fs.stat(path.join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  dated.sort((a, b) => b.t - a.t);
  await Promise.all(dated.slice(keep).map(({ n }) => fs.rm(path.join(dir, n), { force: true })));
}

/**
 * Replaces a file's content at once (a thread starting meanwhile reads the old or the new). The
 * data reaches the disk before the rename, so a crash leaves the old file or the whole new one.
 */
async function replaceFile(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const handle = await fs.open(tmp, "w", 0o600);
  try {
    await handle.writeFile(content);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, file);
}

/**
 * The last derived catalog, kept across launches (`codex debug models` costs 30-250 ms while codex
 * starts, on the first session/new's critical path). Keyed by what decides the catalog: the codex
 * binary, the `-c` overrides, CODEX_HOME and its config.toml; a model list Codex refreshes from the
 * network can still change it, so each launch re-derives in the background and updates both the
 * cache and this process's copy. Kept in a directory only this user can use (checked, not assumed).
 */
export async function catalogCacheFile(
  command: CodexCommand,
  overrides: string[],
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  try {
    const home = codexHomeOf(env);
    const [bin, config] = await Promise.all([
      fs.stat(command.file),
      fs.stat(path.join(home, "config.toml")).catch(() => undefined),
    ]);
    const key = createHash("sha256")
      .update(
        JSON.stringify([command.file, command.args, bin.size, bin.mtimeMs, overrides, home, config?.mtimeMs ?? null]),
      )
      .digest("hex")
      .slice(0, 32);
    const dir = privateCacheDir();
    return dir === undefined ? undefined : path.join(dir, `catalog-${key}.json`);
  } catch {
    return undefined;
  }
}

/**
 * What a catalog folder in the temp dir is named: this prefix, whose pids its pid is
 * (catalogDirOwner), the pid of the agent that made it, a random part.
 */
export const CATALOG_DIR_PREFIX = "codex-cli-acp-catalog-";

/**
 * Whose pids a folder's pid is: this host and pid namespace, hashed. A temp dir shared with a
 * container (its own pid namespace) or another host holds folders whose pids mean nothing here;
 * only folders with this tag are swept.
 */
export function catalogDirOwner(): string {
  let namespace = "";
  try {
    namespace = readlinkSync("/proc/self/ns/pid");
  } catch {
    // Not Linux: the host alone.
  }
  return createHash("sha256").update(`${os.hostname()}\0${namespace}`).digest("hex").slice(0, 8);
}

/** How long after the catalog is made the temp dir is looked through for orphans (start-up is over by then). */
const ORPHAN_SWEEP_DELAY_MS = 5_000;

/** Whether a process of that id exists now (one of another user's counts: it cannot be signalled, but it is there). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the catalog folders of agents that ended without removing their own (killed outright:
 * SIGKILL, a crash), which nothing else would ever remove. Only folders named with this host's and
 * pid namespace's tag and a pid no process has now, real directories (not links), and this user's;
 * a folder named in the older way (no pid) may be a running agent's, and stays. Returns the names removed.
 */
export async function removeOrphanedCatalogDirs(
  root: string = os.tmpdir(),
  owner: string = catalogDirOwner(),
): Promise<string[]> {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const names = await fs.readdir(root).catch(() => [] as string[]);
  const named = new RegExp(`^${CATALOG_DIR_PREFIX}${owner}-(\\d+)-[^-]+$`);
  const removed: string[] = [];
  for (const name of names) {
    const pid = named.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || processExists(Number(pid))) continue;
    const dir = path.join(root, name);
    const info = await fs.lstat(dir).catch(() => undefined);
    if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
    await fs.rm(dir, { recursive: true, force: true }).then(
      () => removed.push(name),
      () => undefined,
    );
  }
  return removed;
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
  // 0700: only this user. Named with our pid, so a later agent can tell it from a running one's.
  const owner = catalogDirOwner();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `${CATALOG_DIR_PREFIX}${owner}-${process.pid}-`));
  try {
    const derived = await derivedInto(dir, opts, overrides, env);
    const sweep = setTimeout(() => {
      void removeOrphanedCatalogDirs(os.tmpdir(), owner).then((removed) => {
        if (removed.length > 0)
          opts.log.info(
            { removed: removed.length },
            "removed the catalog folders of agents that ended without removing them",
          );
      });
    }, ORPHAN_SWEEP_DELAY_MS);
    sweep.unref();
    return {
      ...derived,
      dispose: () => {
        clearTimeout(sweep);
        return derived.dispose();
      },
    };
  } catch (err) {
    await fs.rm(dir, { recursive: true, force: true });
    throw err;
  }
}

async function derivedInto(
  dir: string,
  opts: { command: CodexCommand; log: Logger },
  overrides: string[],
  env: NodeJS.ProcessEnv,
): Promise<DerivedCatalog> {
  const file = path.join(dir, "models.json");
  const cacheFile = await catalogCacheFile(opts.command, overrides, env);
  const derive = async (): Promise<{ json: string; slugs: string[]; source: DerivedCatalog["source"] }> => {
    const { raw, source } = await catalogInEffect(opts.command, overrides, env, opts.log);
    const derived = withoutNativePatch(raw);
    if (cacheFile) {
      await replaceFile(cacheFile, derived.json).catch(() => undefined);
      await pruneCatalogCache(path.dirname(cacheFile)).catch(() => undefined);
    }
    return { ...derived, source };
  };
  const dispose = (refresh?: NodeJS.Timeout) => (): Promise<void> => {
    clearTimeout(refresh);
    return fs.rm(dir, { recursive: true, force: true });
  };
  if (cacheFile && (await linkedCopy(cacheFile, file))) {
    // Linked, not parsed: reading and parsing 0.1-0.8 MB sat on the first session/new (~10 ms on
    // the busy first event loop). We wrote it whole (synced, then renamed) and its end is checked;
    // one damaged inside fails codex's thread/start with a clear message until the refresh mends it.
    // That refresh derives again once start-up is over (a process spawned now would compete with
    // codex's own start): a changed catalog serves the threads after it.
    const refresh = setTimeout(() => void refreshCopy(file, derive, opts.log), REFRESH_DELAY_MS);
    refresh.unref();
    opts.log.debug({ file }, "model catalog without the native apply_patch linked from the cache");
    return { path: file, cached: true, source: "in-effect", dispose: dispose(refresh) };
  }
  const derived = await derive();
  await fs.writeFile(file, derived.json, { mode: 0o600 });
  opts.log.debug(
    { file, source: derived.source, models: derived.slugs.length },
    "model catalog without the native apply_patch written",
  );
  return { path: file, cached: false, source: derived.source, dispose: dispose() };
}

/**
 * Puts the cached catalog at `file`: a hard link (the same file, kept alive under this name if the
 * cache entry is pruned or replaced meanwhile), else a copy. False when there is none to use: no
 * entry, or one that does not end as the JSON object we wrote does (empty, cut short or zeroed,
 * what a crash on a filesystem that renames before the data is written can leave).
 */
async function linkedCopy(cacheFile: string, file: string): Promise<boolean> {
  try {
    if (!endsAsWritten(cacheFile)) return false;
    await fs.link(cacheFile, file).catch(() => fs.copyFile(cacheFile, file));
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the file's last byte closes a JSON object. Synchronous on purpose: an open, a stat, a
 * one-byte read and a close of a local file take microseconds, where each as a promise waits for a
 * turn of the busy first event loop.
 */
function endsAsWritten(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const { size } = fstatSync(fd);
    const last = Buffer.alloc(1);
    return size > 1 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x7d; // "}"
  } finally {
    closeSync(fd);
  }
}

/** Derives the catalog again and puts it in `file` when the cached copy differs (a changed catalog, or a damaged copy). */
async function refreshCopy(
  file: string,
  derive: () => Promise<{ json: string; slugs: string[] }>,
  log: Logger,
): Promise<void> {
  try {
    const derived = await derive();
    if (derived.json === (await fs.readFile(file, "utf8").catch(() => undefined))) return;
    await replaceFile(file, derived.json);
    log.info({ models: derived.slugs.length }, "the model catalog differed from the cached copy; updated");
  } catch {
    // Disposed meanwhile, or codex could not print it: the cached copy stays.
  }
}
