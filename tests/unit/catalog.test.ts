// src/codex/catalog.ts with the real codex binary: the derived catalog keeps every model and field
// but Codex's native apply_patch, follows the user's own model_catalog_json, and passes -c overrides.
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { configOverrides, deriveCatalogWithoutNativePatch, locateCodex } from "../../src/codex/index.js";
import { catalogCacheFile, pruneCatalogCache } from "../../src/codex/catalog.js";
import { waitFor } from "../support/wait-for.js";

const log = pino({ level: "silent" });
let home: string;
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "cca-catalog-"));
});
afterAll(() => rm(home, { recursive: true, force: true }));
const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, CODEX_HOME: home, HOME: home });

type Catalog = { models: Array<Record<string, unknown> & { slug: string }> };
const slugsIn = async (file: string): Promise<string[]> =>
  (JSON.parse(await readFile(file, "utf8")) as Catalog).models.map((m) => m.slug);
const untilSlugs = (file: string, slugs: string[]): Promise<void> =>
  waitFor(
    async () => JSON.stringify(await slugsIn(file).catch(() => undefined)) === JSON.stringify(slugs),
    `the background refresh to write ${slugs.join(", ")} into ${file}`,
  );

describe("the catalog without the native apply_patch", () => {
  it("keeps every bundled model and field, with apply_patch_tool_type null", async () => {
    const derived = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: env(), log });
    try {
      const catalog = JSON.parse(await readFile(derived.path, "utf8")) as Catalog;
      expect(derived.source).toBe("in-effect");
      expect(catalog.models.map((m) => m.slug)).toContain("gpt-5.5");
      for (const m of catalog.models) expect(m.apply_patch_tool_type).toBeNull();
      const gpt = catalog.models.find((m) => m.slug === "gpt-5.5")!;
      expect(gpt.base_instructions).toEqual(expect.any(String));
      expect(gpt.supports_search_tool).toBe(true); // everything else is kept as it was
    } finally {
      await derived.dispose();
    }
  });

  it("follows the user's own model_catalog_json (from config or -c)", async () => {
    const own = path.join(home, "own.json");
    const bundled = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: env(), log });
    const base = JSON.parse(await readFile(bundled.path, "utf8")) as Catalog;
    await bundled.dispose();
    await writeFile(
      own,
      JSON.stringify({ models: [{ ...base.models[0]!, slug: "my-model", apply_patch_tool_type: "freeform" }] }),
    );
    const derived = await deriveCatalogWithoutNativePatch({
      command: locateCodex(),
      args: ["-c", `model_catalog_json=${JSON.stringify(own)}`, "--listen", "x"],
      env: env(),
      log,
    });
    try {
      expect(await slugsIn(derived.path)).toEqual(["my-model"]);
      expect((JSON.parse(await readFile(derived.path, "utf8")) as Catalog).models[0]?.apply_patch_tool_type).toBeNull();
    } finally {
      await derived.dispose();
    }
  });

  it("a later launch starts from the cached catalog at once; a changed catalog replaces it in the background", async () => {
    const own = path.join(home, "cached.json");
    const probe = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: env(), log });
    const base = (JSON.parse(await readFile(probe.path, "utf8")) as Catalog).models[0]!;
    await probe.dispose();
    const ownHome = await mkdtemp(path.join(os.tmpdir(), "cca-catalog-cache-"));
    const ownEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, CODEX_HOME: ownHome, HOME: ownHome });
    await writeFile(path.join(ownHome, "config.toml"), `model_catalog_json = ${JSON.stringify(own)}\n`);
    const write = (slug: string) => writeFile(own, JSON.stringify({ models: [{ ...base, slug }] }));
    try {
      await write("first");
      const one = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: ownEnv(), log });
      expect(one.cached).toBe(false);
      expect(await slugsIn(one.path)).toEqual(["first"]);
      await one.dispose();
      // The catalog changes where the cache key cannot see it (a model list Codex refreshed).
      await write("second");
      const two = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: ownEnv(), log });
      expect(two.cached).toBe(true);
      expect(await slugsIn(two.path)).toEqual(["first"]); // at once, from the cache
      await untilSlugs(two.path, ["second"]);
      await two.dispose();
      const three = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: ownEnv(), log });
      expect(await slugsIn(three.path)).toEqual(["second"]);
      await three.dispose();
    } finally {
      await rm(ownHome, { recursive: true, force: true });
    }
  });

  it("a cache entry a crash could leave (empty, cut short, zeroed) is derived again at once; one damaged inside is mended in the background", async () => {
    const ownHome = await mkdtemp(path.join(os.tmpdir(), "cca-catalog-bad-"));
    const ownEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, CODEX_HOME: ownHome, HOME: ownHome });
    try {
      const one = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: ownEnv(), log });
      const slugs = await slugsIn(one.path);
      await one.dispose();
      const entry = (await catalogCacheFile(locateCodex(), [], ownEnv()))!;
      expect(await slugsIn(entry)).toEqual(slugs);
      for (const damage of ["", '{"models":[{"slug":"broken"', "\0".repeat(4096)]) {
        await writeFile(entry, damage);
        const again = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: ownEnv(), log });
        expect(again.cached).toBe(false); // derived again, at once
        expect(await slugsIn(again.path)).toEqual(slugs);
        expect(await slugsIn(entry)).toEqual(slugs);
        await again.dispose();
      }
      await writeFile(entry, '{"models":[{"slug":"not what codex prints"}]}'); // whole, but not the catalog
      const linked = await deriveCatalogWithoutNativePatch({ command: locateCodex(), args: [], env: ownEnv(), log });
      expect(linked.cached).toBe(true);
      await untilSlugs(linked.path, slugs);
      await untilSlugs(entry, slugs);
      await linked.dispose();
      expect(
        (await readdir(path.dirname(entry))).filter((n) => n.startsWith(path.basename(entry)) && n.endsWith(".tmp")),
      ).toEqual([]);
    } finally {
      await rm(ownHome, { recursive: true, force: true });
    }
  });

  it("the cache keeps only the newest catalogs and nothing else is touched", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "cca-catalog-prune-"));
    try {
      const names = Array.from({ length: 11 }, (_, i) => `catalog-${i.toString(16).padStart(32, "0")}.json`);
      for (const [i, name] of names.entries()) {
        await writeFile(path.join(dir, name), "{}");
        await utimes(path.join(dir, name), 1_000 + i, 1_000 + i); // older first
      }
      await writeFile(path.join(dir, "catalog-abc.json.123.tmp"), "{}");
      await writeFile(path.join(dir, "notes.txt"), "mine");
      await pruneCatalogCache(dir, 8);
      expect((await readdir(dir)).sort()).toEqual([...names.slice(3), "catalog-abc.json.123.tmp", "notes.txt"].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("passes on only the arguments `codex debug models` takes", () => {
    expect(
      configOverrides([
        "-c",
        "a=1",
        "--listen",
        "stdio://",
        "--enable",
        "x",
        "--config=b=2",
        "-cc=3",
        "--disable",
        "y",
      ]),
    ).toEqual(["-c", "a=1", "--enable", "x", "--config=b=2", "-cc=3", "--disable", "y"]);
  });
});
