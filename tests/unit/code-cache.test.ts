// The agent's code cache (src/startup/code-cache.ts): Node 20 compiles every module from source at
// each start; the bin loads the agent through vm.Script with V8's cache of it. What must hold: a
// cache is used when it fits, written once when it does not (atomically, replacing the caches of
// older builds), a broken one costs nothing but a rewrite, and it is off where asked.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeCachePath } from "../../src/startup/code-cache.js";
import { loadWithCodeCache } from "../../src/startup/index.js";

let dir: string;
let cacheDir: string;
let script: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cca-code-cache-"));
  cacheDir = path.join(dir, "cache");
  await mkdir(cacheDir, { mode: 0o700 });
  script = path.join(dir, "agent.js");
  // Unique per test: V8 remembers what this process compiled, by source, and would not consult a
  // cache for a source it compiled already.
  await writeFile(script, scriptText());
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A CommonJS function script as the build writes dist/agent.js: it uses require and exports a function. */
const scriptText = (
  body = "n * 2",
): string => `(function (exports, require, module, __filename, __dirname) { "use strict";
const path = require("node:path");
module.exports = { twice: (n) => ${body}, where: () => path.basename(__filename), dir: __dirname, id: "${Math.random().toFixed(12)}" };
})`;

const NO_SWITCHES = {} as NodeJS.ProcessEnv;
const caches = async (): Promise<string[]> => (await readdir(cacheDir)).filter((n) => n.endsWith(".v8cache")).sort();
const STARTUP = path.resolve(import.meta.dirname, "../../src/startup/index.ts");
type Exports = { twice(n: number): number; where(): string; dir: string };

describe("loading through the code cache", () => {
  it("runs the script with CommonJS's arguments, and writes the cache only when asked", async () => {
    const first = loadWithCodeCache(script, { cacheDir, env: NO_SWITCHES });
    expect(first.cache).toBe("absent");
    const exported = first.exports as Exports;
    expect(exported.twice(21)).toBe(42);
    expect(exported.where()).toBe("agent.js");
    expect(exported.dir).toBe(dir);
    expect(await caches()).toEqual([]);
    first.keepCompiledCode();
    const written = await caches();
    expect(written).toHaveLength(1);
    expect(path.join(cacheDir, written[0]!)).toBe(codeCachePath(script, await readFile(script), cacheDir));
    expect(written[0]).toMatch(
      new RegExp(`^agent\\.js\\.[0-9a-f]{16}\\.${process.version.replace(/\./g, "\\.")}-${process.arch}\\.v8cache$`),
    );
    expect((await stat(path.join(cacheDir, written[0]!))).mode & 0o777).toBe(0o600);
    // No temporary file left beside it.
    expect((await readdir(cacheDir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("uses a fitting cache, and a start that used one writes nothing", async () => {
    loadWithCodeCache(script, { cacheDir, env: NO_SWITCHES }).keepCompiledCode();
    const [name] = await caches();
    const before = await stat(path.join(cacheDir, name!));
    const second = loadWithCodeCache(script, { cacheDir, env: NO_SWITCHES });
    expect(second.cache).toBe("used");
    expect((second.exports as Exports).twice(4)).toBe(8);
    second.keepCompiledCode();
    expect((await stat(path.join(cacheDir, name!))).mtimeMs).toBe(before.mtimeMs);
  });

  it("a broken cache is rejected by V8, the script still runs, and a good cache replaces it", async () => {
    const where = codeCachePath(script, await readFile(script), cacheDir);
    const garbage = Buffer.from("not a V8 code cache at all, just bytes");
    await writeFile(where, garbage);
    const broken = loadWithCodeCache(script, { cacheDir, env: NO_SWITCHES });
    expect(broken.cache).toBe("rejected");
    expect((broken.exports as Exports).twice(5)).toBe(10);
    broken.keepCompiledCode();
    const rewritten = await readFile(where);
    expect(rewritten.equals(garbage)).toBe(false);
    expect(rewritten.length).toBeGreaterThan(garbage.length);
  });

  it("another build of the same length is another cache (V8 itself checks only the length)", async () => {
    loadWithCodeCache(script, { cacheDir, env: NO_SWITCHES }).keepCompiledCode();
    const sameLength = scriptText("n + n");
    expect(sameLength.length).toBe((await readFile(script, "utf8")).length);
    await writeFile(script, sameLength);
    const next = loadWithCodeCache(script, { cacheDir, env: NO_SWITCHES });
    expect(next.cache).toBe("absent");
    expect((next.exports as Exports).twice(7)).toBe(14);
  });

  it("builds used in turn keep their caches (an editor's pinned version beside an npx of the latest); past four, the oldest goes, not another file's", async () => {
    const other = path.join(dir, "other.js");
    await writeFile(other, scriptText());
    loadWithCodeCache(other, { cacheDir, env: NO_SWITCHES }).keepCompiledCode();
    const builds: string[] = [];
    for (const body of ["n * 2", "n + n", "2 * n", "n << 1", "n - -n"]) {
      await writeFile(script, scriptText(body));
      const loaded = loadWithCodeCache(script, { cacheDir, env: NO_SWITCHES });
      expect(loaded.cache).toBe("absent");
      loaded.keepCompiledCode();
      builds.push(path.basename(codeCachePath(script, await readFile(script), cacheDir)));
      // Distinct write times, as builds written on different days have.
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    const after = await caches();
    expect(after.filter((n) => n.startsWith("agent.js.")).sort()).toEqual(builds.slice(1).sort());
    expect(after.filter((n) => n.startsWith("other.js."))).toHaveLength(1);
  });

  it.each([
    ["no cache directory", undefined, NO_SWITCHES],
    ["NODE_DISABLE_COMPILE_CACHE", "dir", { NODE_DISABLE_COMPILE_CACHE: "1" }],
    ["NODE_V8_COVERAGE (a cached function reports coarser coverage)", "dir", { NODE_V8_COVERAGE: "/tmp/coverage" }],
  ] as const)("is off with %s: nothing read or written", async (_why, where, env) => {
    loadWithCodeCache(script, { cacheDir, env: NO_SWITCHES }).keepCompiledCode();
    const before = await caches();
    const loaded = loadWithCodeCache(script, { cacheDir: where === undefined ? undefined : cacheDir, env });
    expect(loaded.cache).toBe("off");
    expect((loaded.exports as Exports).twice(1)).toBe(2);
    await writeFile(script, scriptText("2 * n"));
    loadWithCodeCache(script, { cacheDir: where === undefined ? undefined : cacheDir, env }).keepCompiledCode();
    expect(await caches()).toEqual(before);
  });

  it("a cache directory it cannot write to (gone) costs the start nothing", async () => {
    const missing = path.join(dir, "missing", "deeper");
    const loaded = loadWithCodeCache(script, { cacheDir: missing, env: NO_SWITCHES });
    expect(loaded.cache).toBe("absent");
    expect(() => loaded.keepCompiledCode()).not.toThrow();
    expect((loaded.exports as Exports).twice(3)).toBe(6);
  });

  it("refuses a file that is not a CommonJS function script, saying which", async () => {
    const plain = path.join(dir, "plain.js");
    await writeFile(plain, "[1, 2, 3];");
    expect(() => loadWithCodeCache(plain, { cacheDir, env: NO_SWITCHES })).toThrow(
      /plain\.js is not a CommonJS function script/,
    );
  });

  it("a cache written while a stored session's load widens the young generation is used by the next start (V8 checks the flags a cache was made with)", () => {
    // Fresh processes, as the bin: the young generation kept small before the agent loads. The
    // load's wider growth factor is a V8 flag too, and a cache made under it was rejected at every
    // later start, which then wrote it again.
    const start = (write: boolean): string => {
      const code = `
        import { keepYoungGenerationSmall, loadWithCodeCache, youngGeneration } from ${JSON.stringify(STARTUP)};
        keepYoungGenerationSmall();
        const young = youngGeneration();
        const loaded = loadWithCodeCache(${JSON.stringify(script)}, { cacheDir: ${JSON.stringify(cacheDir)}, env: {}, asLoaded: young.asLoaded });
        if (${write}) {
          const release = young.widen();
          loaded.keepCompiledCode();
          release();
        }
        process.stdout.write(loaded.cache);
      `;
      return execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
        encoding: "utf8",
      });
    };
    expect(start(true)).toBe("absent");
    expect(start(false)).toBe("used");
  });
});
