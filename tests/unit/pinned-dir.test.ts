// A folder held open for a write (src/editor-files/access/pinned-dir.ts): once it is opened and
// checked, swapping it for a link to another folder does not move what is done in it; a link
// already in its place is refused. And the two ways the node:fs backend writes and deletes, with a
// folder swapped back and forth for a link the whole time: nothing outside the workspace changes.
import { fork } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeFolders, pinDir } from "../../src/editor-files/access/pinned-dir.js";
import { removeInDir, writeAtomic } from "../../src/editor-files/access/local.js";

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

async function layout(): Promise<{ ws: string; dir: string; outside: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cca-pinned-"));
  roots.push(root);
  const ws = path.join(root, "ws");
  const dir = path.join(ws, "d");
  const outside = path.join(root, "outside");
  await mkdir(dir, { recursive: true });
  await mkdir(outside);
  return { ws, dir, outside };
}

const changed = (): Error => new Error("the folder changed");

describe.skipIf(process.platform !== "linux")("pinDir", () => {
  it("keeps working in the folder it opened after that folder is swapped for a link", async () => {
    const { ws, dir, outside } = await layout();
    await writeFile(path.join(dir, "victim.txt"), "inside");
    await writeFile(path.join(outside, "victim.txt"), "outside");
    const pinned = await pinDir(dir, changed);
    await rename(dir, path.join(ws, "d.moved"));
    await symlink(outside, dir);
    await rm(pinned.at("victim.txt"));
    await writeFile(pinned.at("new.txt"), "made inside");
    await pinned.close();
    expect(await readdir(outside)).toEqual(["victim.txt"]);
    expect(await readFile(path.join(outside, "victim.txt"), "utf8")).toBe("outside");
    expect(await readdir(path.join(ws, "d.moved"))).toEqual(["new.txt"]);
  });

  it("refuses a folder that is already a link to another one", async () => {
    const { ws, dir, outside } = await layout();
    await rename(dir, path.join(ws, "d.moved"));
    await symlink(outside, dir);
    await expect(pinDir(dir, changed)).rejects.toThrow("the folder changed");
  });
});

describe.skipIf(process.platform !== "linux")("the node:fs backend while a folder is swapped for a link", () => {
  it("writes and deletes land in the workspace or are refused, never outside it", { timeout: 60_000 }, async () => {
    const { dir, outside } = await layout();
    const child = fork(path.resolve(import.meta.dirname, "../support/swap-dir.cjs"), [dir, outside], {
      stdio: ["ignore", "ignore", "ignore", "ipc"],
    });
    await new Promise((resolve) => child.once("message", resolve));
    try {
      for (let i = 0; i < 400; i++) {
        await writeFile(path.join(outside, "victim.txt"), "outside").catch(() => undefined);
        await writeFile(path.join(dir, "victim.txt"), "inside").catch(() => undefined);
        await removeInDir(path.join(dir, "victim.txt"), changed).catch(() => undefined);
        await writeAtomic(
          path.join(dir, "payload.txt"),
          `payload ${i}`,
          undefined,
          path.join(dir, "payload.txt"),
        ).catch(() => undefined);
        await makeFolders(path.join(dir, `made${i}`, "deeper"), changed).catch(() => undefined);
        expect(existsSync(path.join(outside, "victim.txt")), `delete ${i} reached outside`).toBe(true);
        expect(await readdir(outside), `write or folder ${i} reached outside`).toEqual(["victim.txt"]);
      }
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("makeFolders", () => {
  it("makes the missing folders and returns the first one made, as mkdir -p does; a file in the way is an error", async () => {
    const { dir } = await layout();
    const deep = path.join(dir, "a", "b", "c");
    await expect(makeFolders(deep, changed)).resolves.toBe(path.join(dir, "a"));
    expect(existsSync(deep)).toBe(true);
    await expect(makeFolders(deep, changed)).resolves.toBeUndefined();
    await writeFile(path.join(dir, "file"), "");
    await expect(makeFolders(path.join(dir, "file", "x"), changed)).rejects.toMatchObject({ code: "ENOTDIR" });
  });

  it.skipIf(process.platform !== "linux")(
    "refuses a part of the path that is a link (it was judged without one)",
    async () => {
      const { ws, dir, outside } = await layout();
      await rename(dir, path.join(ws, "d.moved"));
      await symlink(outside, dir);
      await expect(makeFolders(path.join(dir, "x", "y"), changed)).rejects.toThrow("the folder changed");
      expect(await readdir(outside)).toEqual([]);
    },
  );
});

describe("writeAtomic", () => {
  it("writes a file whose name is as long as a name may be (255 bytes), leaving no temp file", async () => {
    const { dir } = await layout();
    for (const name of ["a".repeat(255), `${"é".repeat(126)}.t`]) {
      const target = path.join(dir, name);
      await writeAtomic(target, "long name", undefined, target);
      expect(await readFile(target, "utf8")).toBe("long name");
    }
    expect((await readdir(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});

describe("pinDir where a folder cannot be held open (macOS, Windows)", () => {
  it("checks the folder's path again right before the call: one swapped for a link is refused", async () => {
    const { ws, dir, outside } = await layout();
    const pinned = await pinDir(dir, changed, "darwin");
    await expect(pinned.recheck()).resolves.toBeUndefined();
    await rename(dir, path.join(ws, "d.moved"));
    await symlink(outside, dir);
    await expect(pinned.recheck()).rejects.toThrow("the folder changed");
    await pinned.close();
  });
});
