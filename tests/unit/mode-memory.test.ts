// The mode a stored thread was left in, kept where Codex's settings cannot tell it
// (src/features/modes/mode-memory.ts, on the core's ThreadMemory): one small file per thread, written whole or not at all,
// read back; a thread id that is not one is never a path; a broken store costs the memory only.
import { mkdtemp, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ModeMemory } from "../../src/features/modes/mode-memory.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function memoryIn(): Promise<{ memory: ModeMemory; dir: string; warnings: string[] }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "mode-memory-"));
  dirs.push(root);
  const dir = path.join(root, "codex-cli-acp", "session-modes");
  const warnings: string[] = [];
  const log = { warn: (_: unknown, msg: string) => void warnings.push(msg), debug: () => undefined };
  return { memory: new ModeMemory(dir, log), dir, warnings };
}

const THREAD = "019b2c3d-4e5f-7a8b-9c0d-1e2f3a4b5c6d";

describe("ModeMemory", () => {
  it("recalls what it was told; forgetting removes the thread's file", async () => {
    const { memory, dir } = await memoryIn();
    expect(await memory.recall(THREAD)).toBeUndefined();
    await memory.remember(THREAD, "review-edits");
    expect(await memory.recall(THREAD)).toBe("review-edits");
    expect(await readdir(dir)).toEqual([THREAD]);
    await memory.remember(THREAD, undefined);
    expect(await memory.recall(THREAD)).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });

  it("the last of several quick changes is what stays, and no temporary file is left", async () => {
    const { memory, dir } = await memoryIn();
    await Promise.all([
      memory.remember(THREAD, "review-edits"),
      memory.remember(THREAD, undefined),
      memory.remember(THREAD, "review-edits"),
    ]);
    expect(await memory.recall(THREAD)).toBe("review-edits");
    expect(await readdir(dir)).toEqual([THREAD]);
  });

  it("a thread id that could name another place is neither written nor read", async () => {
    const { memory, dir } = await memoryIn();
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(path.dirname(dir), "outside"), "review-edits");
    for (const id of ["../outside", "a/b", "", ".", "..", "x".repeat(300), "a\u0000b"]) {
      await memory.remember(id, "review-edits");
      expect(await memory.recall(id)).toBeUndefined();
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("a file that does not hold a mode id is no memory", async () => {
    const { memory, dir } = await memoryIn();
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, THREAD), "{ not a mode }\n");
    expect(await memory.recall(THREAD)).toBeUndefined();
    await writeFile(path.join(dir, THREAD), "x".repeat(10_000));
    expect(await memory.recall(THREAD)).toBeUndefined();
  });

  it("a store it cannot write costs the memory, with a warning, and throws nothing", async () => {
    const { memory, dir, warnings } = await memoryIn();
    // A file where the store's folder should be: nothing can be made under it.
    await mkdir(path.dirname(dir), { recursive: true });
    await writeFile(dir, "not a folder");
    await memory.remember(THREAD, "review-edits");
    expect(await memory.recall(THREAD)).toBeUndefined();
    expect(warnings).toHaveLength(1);
  });
});
