// Loads a CommonJS script through V8's code cache. Node 20 compiles every module from source at
// each start (module.enableCompileCache is Node 22.1+, and only for what loads after it); the
// agent is ~1 MB of JavaScript, and compiling it was ~30 ms of the ~110 ms the bin spent loading
// before it could answer `initialize` (bench timeline). vm.Script takes and makes V8's cache
// directly, on every Node version this package supports.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";

/** A loaded script: its exports, and a way to keep V8's compiled code of it for the next start. */
export type CachedScript = {
  exports: unknown;
  /** How the cache served this start: used, absent (none yet for this build), rejected by V8, or off (no cache dir, or switched off). */
  cache: "used" | "absent" | "rejected" | "off";
  /**
   * Writes V8's code of every function of the script compiled so far, unless this start used a
   * cache already. Call it once the work worth caching has run (a cache made right after loading
   * holds little beyond the top level: V8 compiles functions when first called). Best effort:
   * a cache that cannot be written is skipped; written to a temporary name, then renamed, so a
   * concurrent start never reads half of one.
   */
  keepCompiledCode(): void;
};

export type CodeCacheOptions = {
  /** Where caches are kept (a private directory of this user); undefined: no cache. */
  cacheDir: string | undefined;
  env?: NodeJS.ProcessEnv;
  /**
   * Runs `make` under V8's flags as they were when the script was loaded. V8 records the flags a
   * cache is made with and rejects it under others; the agent changes one while it runs (the
   * young generation's growth, src/startup/young-generation.ts), and a cache made then was
   * rejected at every later start. Default: as they are.
   */
  asLoaded?: <T>(make: () => T) => T;
};

/**
 * Runs `file`, a script whose whole text is one function expression taking CommonJS's
 * `(exports, require, module, __filename, __dirname)` (the build writes it so: the positions V8
 * reports, for stack traces and coverage, are then the file's own), and returns what it exported.
 *
 * The cache's name holds what V8's own check of a cache does not: a hash of the file's contents
 * (V8 checks only the source's length, and would run a cache of other code of the same length;
 * npm gives every installed file the same mtime, so the mtime cannot tell builds apart), Node's
 * version and the architecture. V8 rejects a cache of other flags or another V8 (`rejected`), and
 * a new one is written. Off when NODE_DISABLE_COMPILE_CACHE is set (Node's own switch for its
 * compile cache) and under NODE_V8_COVERAGE (code from a cache reports coarser coverage).
 */
export function loadWithCodeCache(file: string, opts: CodeCacheOptions): CachedScript {
  const env = opts.env ?? process.env;
  const bytes = readFileSync(file);
  const source = bytes.toString("utf8");
  const off = opts.cacheDir === undefined || Boolean(env.NODE_DISABLE_COMPILE_CACHE) || Boolean(env.NODE_V8_COVERAGE);
  const cacheDir = off ? undefined : opts.cacheDir;
  const cacheFile = cacheDir === undefined ? undefined : codeCachePath(file, bytes, cacheDir);
  const cachedData = cacheFile === undefined ? undefined : readIfPresent(cacheFile);
  const script = new vm.Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const cache: CachedScript["cache"] = off
    ? "off"
    : cachedData === undefined
      ? "absent"
      : script.cachedDataRejected
        ? "rejected"
        : "used";
  const wrapper: unknown = script.runInThisContext();
  if (typeof wrapper !== "function") throw new Error(`${file} is not a CommonJS function script`);
  const module = { exports: {} as unknown };
  (wrapper as (...args: unknown[]) => unknown).call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    path.dirname(file),
  );
  let kept = cache === "used" || cacheFile === undefined;
  return {
    exports: module.exports,
    cache,
    keepCompiledCode() {
      if (kept || cacheFile === undefined) return;
      kept = true;
      const asLoaded = opts.asLoaded ?? ((make) => make());
      writeCache(
        cacheFile,
        `${path.basename(file)}.`,
        asLoaded(() => script.createCachedData()),
      );
    },
  };
}

/** Where the cache of `file` with these contents goes: `<cacheDir>/<name>.<sha-256, 16 hex>.<node version>-<arch>.v8cache` */
export function codeCachePath(file: string, contents: Buffer, cacheDir: string): string {
  const hash = createHash("sha256").update(contents).digest("hex").slice(0, 16);
  return path.join(cacheDir, `${path.basename(file)}.${hash}.${process.version}-${process.arch}.v8cache`);
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** How many builds of one file keep a cache: an editor's pinned version and an `npx` of the latest, used in turn, must not evict each other's. */
const CACHES_KEPT = 4;

/** Writes `data` as `target` (a temporary name, then a rename), and removes all but the newest CACHES_KEPT caches named `prefix`... (other builds of the file). */
function writeCache(target: string, prefix: string, data: Buffer): void {
  const dir = path.dirname(target);
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, target);
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // Never written.
    }
    return;
  }
  try {
    const builds = readdirSync(dir)
      .filter((name) => name.startsWith(prefix) && name.endsWith(".v8cache"))
      .map((name) => ({ file: path.join(dir, name), written: statSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => b.written - a.written);
    for (const old of builds.slice(CACHES_KEPT)) if (old.file !== target) unlinkSync(old.file);
  } catch {
    // Another start removing the same old caches: theirs or ours, they are gone.
  }
}
