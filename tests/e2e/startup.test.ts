// Start-up (issue 30): what does not depend on the client is prepared while Node loads the ACP
// side, before `initialize`: codex (spawned and initialized) and the model catalog the file tools
// give Codex's threads. An editor that starts the agent and goes away without a word leaves
// nothing behind: no codex, no catalog in the temp dir.
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codexChildPid, startAdapter, type Adapter, isAlive } from "../support/adapter.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

describe("before initialize", () => {
  it("derives the model catalog and starts codex; the client closing stdin unsaid removes both", async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), "cca-startup-"));
    const catalogs = async () => (await readdir(tmp)).filter((n) => n.startsWith("codex-cli-acp-catalog-"));
    try {
      adapter = await startAdapter({ env: { TMPDIR: tmp } });
      await waitFor(
        async () => (await catalogs()).length === 1,
        "the catalog folder in the temp dir, with no initialize sent",
      );
      const codexPid = await codexChildPid(adapter.child.pid!);
      expect(codexPid).toBeDefined();
      const exited = new Promise<number | null>((resolve) => adapter!.child.once("exit", (code) => resolve(code)));
      adapter.child.stdin!.end();
      expect(await exited).toBe(0);
      expect(await catalogs()).toEqual([]);
      await waitFor(() => !isAlive(codexPid!), `codex ${codexPid} to be gone`);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("the agent's code cache (Node 20 compiles every module at each start; the bin loads the agent through V8's cache)", () => {
  it("a first start writes it as it ends, the next uses it, and a broken one is rewritten without costing the start", async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), "cca-code-cache-"));
    // Coverage turns the cache off (a cached function reports coarser counts): not here.
    const env = { TMPDIR: tmp, NODE_V8_COVERAGE: "" };
    const cacheFiles = async (): Promise<string[]> => {
      const [dir] = (await readdir(tmp)).filter((n) => n.startsWith("codex-cli-acp-cache"));
      return dir
        ? (await readdir(path.join(tmp, dir))).filter((n) => n.endsWith(".v8cache")).map((n) => path.join(tmp, dir, n))
        : [];
    };
    const startOnce = async (): Promise<string> => {
      adapter = await startAdapter({ env });
      await adapter.initialize();
      expect((await adapter.newSession()).sessionId).toBeTruthy();
      const log = adapter.stderr();
      await adapter.close();
      adapter = undefined;
      return /"timing":"agent loaded \(code cache (\w+)\)"/.exec(log)?.[1] ?? "no mark";
    };
    try {
      expect(await startOnce()).toBe("absent");
      const [cache] = await cacheFiles();
      expect(cache).toMatch(/agent\.js\.[0-9a-f]{16}\.v\d+\.\d+\.\d+-\w+\.v8cache$/);
      expect(await startOnce()).toBe("used");
      await writeFile(cache!, "a torn or foreign file, not V8's");
      expect(await startOnce()).toBe("rejected");
      expect((await readFile(cache!)).length).toBeGreaterThan(1000);
      expect(await startOnce()).toBe("used");
      expect(await cacheFiles()).toEqual([cache]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
