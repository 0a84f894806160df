// The fake model's catalog cache (issue 26): codex reads the catalog as its model list, so a file
// someone else could have put in a shared temp folder must not be it. The cache lives in this
// user's private cache directory (the agent's own, src/config/cache-dir.ts) and is skipped when
// that directory cannot be trusted.
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodexHome } from "../support/codex-home.js";

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => fs.rm(r, { recursive: true, force: true })));
});
async function root(): Promise<string> {
  const r = await fs.mkdtemp(path.join(os.tmpdir(), "cca-catalog-root-"));
  roots.push(r);
  return r;
}
const privateName = `codex-cli-acp-cache-${process.getuid?.() ?? "user"}`;
const modeOf = async (p: string): Promise<number> => (await fs.stat(p)).mode & 0o777;

async function homeCatalog(cacheRoot: string): Promise<{ slugs: string[]; text: string }> {
  const ch = await createCodexHome({
    modelUrl: "http://127.0.0.1:9/v1",
    dir: path.join(cacheRoot, `home-${Math.random().toString(36).slice(2)}`),
    cacheRoot,
  });
  const text = await fs.readFile(ch.modelCatalogPath, "utf8");
  return { slugs: (JSON.parse(text) as { models: Array<{ slug: string }> }).models.map((m) => m.slug), text };
}

describe.runIf(process.platform !== "win32")("the fake model's catalog cache", () => {
  it("is kept in this user's private cache directory (0700) and reused", async () => {
    const r = await root();
    const first = await homeCatalog(r);
    expect(first.slugs[0]).toBe("fake-model");
    const cacheDir = path.join(r, privateName, "fake-model");
    expect(await modeOf(path.join(r, privateName))).toBe(0o700);
    expect(await modeOf(cacheDir)).toBe(0o700);
    const [cached] = await fs.readdir(cacheDir);
    expect(cached).toMatch(/^models-.*\.json$/);
    expect(await fs.readFile(path.join(cacheDir, cached!), "utf8")).toBe(first.text);
    expect((await homeCatalog(r)).text).toBe(first.text);
  });

  it("rebuilds a cached file that is not a catalog with the fake model", async () => {
    const r = await root();
    await homeCatalog(r);
    const cacheDir = path.join(r, privateName, "fake-model");
    const [cached] = await fs.readdir(cacheDir);
    await fs.writeFile(path.join(cacheDir, cached!), JSON.stringify({ models: [{ slug: "planted" }] }));
    expect((await homeCatalog(r)).slugs[0]).toBe("fake-model");
  });

  it("is not used in a directory other users can write to: the catalog is built for the home alone", async () => {
    const r = await root();
    await fs.mkdir(path.join(r, privateName));
    await fs.chmod(path.join(r, privateName), 0o777);
    expect((await homeCatalog(r)).slugs[0]).toBe("fake-model");
    expect(await fs.readdir(path.join(r, privateName))).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)("is not used in a directory another user owns", async () => {
    const r = await root();
    await fs.mkdir(path.join(r, privateName), { mode: 0o700 });
    await fs.chown(path.join(r, privateName), 65534, 65534);
    expect((await homeCatalog(r)).slugs[0]).toBe("fake-model");
    expect(await fs.readdir(path.join(r, privateName))).toEqual([]);
  });
});
