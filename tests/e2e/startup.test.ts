// Start-up (issue 30): what does not depend on the client is prepared while Node loads the ACP
// side, before `initialize`: codex (spawned and initialized) and the model catalog the file tools
// give Codex's threads. An editor that starts the agent and goes away without a word leaves
// nothing behind: no codex, no catalog in the temp dir.
import { mkdtemp, readdir, rm } from "node:fs/promises";
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
      await waitFor(async () => (await catalogs()).length === 1, "the catalog folder in the temp dir, with no initialize sent");
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
