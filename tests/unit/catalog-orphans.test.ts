// The catalog folders an agent killed outright (SIGKILL, a crash) leaves in the temp dir: the next
// agent removes those of processes that are gone, and nothing else (src/codex/catalog.ts).
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CATALOG_DIR_PREFIX, catalogDirOwner, removeOrphanedCatalogDirs } from "../../src/codex/catalog.js";

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

/** A pid no process has now (one that ran and ended). */
function endedPid(): number {
  return spawnSync(process.execPath, ["-e", "0"]).pid;
}

describe("removeOrphanedCatalogDirs", () => {
  it("removes the folders of ended processes, and keeps a running process's, other names, files and links", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "cca-orphans-"));
    roots.push(root);
    const outside = await mkdtemp(path.join(os.tmpdir(), "cca-orphans-outside-"));
    roots.push(outside);
    await writeFile(path.join(outside, "keep.txt"), "not ours to remove");
    const ended = endedPid();
    const owner = catalogDirOwner();
    const orphan = `${CATALOG_DIR_PREFIX}${owner}-${ended}-aB3xYz`;
    const mine = `${CATALOG_DIR_PREFIX}${owner}-${process.pid}-Qw12Er`;
    // Another host's or pid namespace's (a container sharing the temp dir): its pid means nothing here.
    const elsewhere = `${CATALOG_DIR_PREFIX}0badf00d-${ended}-Zz99Yy`;
    const olderFormat = `${CATALOG_DIR_PREFIX}Zx9Kp1`; // no pid: whose it is cannot be told
    const fileNamedLikeOne = `${CATALOG_DIR_PREFIX}${owner}-${ended}-file00`;
    const linkNamedLikeOne = `${CATALOG_DIR_PREFIX}${owner}-${ended}-link00`;
    for (const dir of [orphan, mine, elsewhere, olderFormat, "unrelated-folder"]) {
      await mkdir(path.join(root, dir));
      await writeFile(path.join(root, dir, "models.json"), "{}");
    }
    await writeFile(path.join(root, fileNamedLikeOne), "a file");
    await symlink(outside, path.join(root, linkNamedLikeOne));

    const removed = await removeOrphanedCatalogDirs(root);

    expect(removed).toEqual([orphan]);
    expect((await readdir(root)).sort()).toEqual(
      [fileNamedLikeOne, linkNamedLikeOne, mine, elsewhere, olderFormat, "unrelated-folder"].sort(),
    );
    expect(await readdir(outside)).toEqual(["keep.txt"]);
  });

  it("a temp dir it cannot read is no error", async () => {
    await expect(removeOrphanedCatalogDirs(path.join(os.tmpdir(), "cca-no-such-dir-xyz"))).resolves.toEqual([]);
  });
});
