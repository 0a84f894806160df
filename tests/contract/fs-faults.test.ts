// Faults around the local backend (issue 14): a process killed (kill -9) in the middle of a large
// write leaves the old content or the new one, never a torn file; a file replaced during a windowed
// read gives the lines of one version, not a mix.
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalFiles } from "../../src/editor-files/access/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fs-faults-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
// tsx's loader in the writer's own process: its CLI would run the writer in a child of its own,
// which a SIGKILL to the CLI leaves running (the kill never reached the write, and the orphan
// raced this file's cleanup).
const tsxLoader = pathToFileURL(path.resolve(import.meta.dirname, "../../node_modules/tsx/dist/loader.mjs")).href;

describe("local writes under faults", () => {
  it("kill -9 during a 200 MB write leaves the old or the new content, never a torn file", async () => {
    const target = path.join(dir, "big.txt");
    const kills: string[] = [];
    for (const delayMs of [0, 50, 300, 800]) {
      fs.writeFileSync(target, "OLD CONTENT\n");
      const child = spawn(
        process.execPath,
        ["--import", tsxLoader, path.join(import.meta.dirname, "crash-child.ts"), target, "200"],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      // Listened for from the start: a fast disk can finish the write before the kill.
      const exited = new Promise((r) => child.once("exit", r));
      await new Promise<void>((resolve) =>
        child.stdout.on("data", (c: Buffer) => c.toString().includes("writing") && resolve()),
      );
      await new Promise((r) => setTimeout(r, delayMs)); // the scenario: kills at different points of the write
      child.kill("SIGKILL");
      await exited;
      const size = fs.statSync(target).size;
      const old = size === "OLD CONTENT\n".length && fs.readFileSync(target, "utf8") === "OLD CONTENT\n";
      expect(old || size === 200 * 1024 * 1024, `size ${size} after a kill at ${delayMs} ms`).toBe(true);
      kills.push(child.signalCode === "SIGKILL" ? (old ? "old" : "new") : "finished first");
    }
    // At least one kill landed mid-write: the one sent as soon as the writer says it has begun
    // (a 200 MB write takes tens of ms even on tmpfs; the kill arrives within one).
    expect(kills).toContain("old");
  }, 120_000);
});

describe("temp files of killed writes", () => {
  it("are removed by a later write to the same file once they are old; recent ones (a write in progress) are kept", async () => {
    const target = path.join(dir, "t.txt");
    fs.writeFileSync(target, "x\n");
    const stale = path.join(dir, ".t.txt.0123456789ab.tmp");
    const fresh = path.join(dir, ".t.txt.ba9876543210.tmp");
    const other = path.join(dir, ".u.txt.0123456789ab.tmp");
    for (const f of [stale, fresh, other]) fs.writeFileSync(f, "partial");
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(stale, hourAgo, hourAgo);
    fs.utimesSync(other, hourAgo, hourAgo);
    await createLocalFiles().write({ path: target, content: "y\n" });
    expect([fs.existsSync(stale), fs.existsSync(fresh), fs.existsSync(other)]).toEqual([false, true, true]);
  });
});

describe("reads under change", () => {
  it("a file replaced during a windowed read gives one version's lines", async () => {
    const target = path.join(dir, "changing.txt");
    const version = (v: string): string => Array.from({ length: 400_000 }, (_, i) => `${v} line ${i}\n`).join("");
    fs.writeFileSync(target, version("old"));
    const replacement = path.join(dir, "replacement.txt");
    fs.writeFileSync(replacement, version("new"));
    const files = createLocalFiles();
    const reading = files.read({ path: target, line: 350_000, limit: 3 });
    fs.renameSync(replacement, target); // while the read streams through the file
    const r = await reading;
    expect(["old", "new"].map((v) => `${v} line 349999\n${v} line 350000\n${v} line 350001\n`)).toContain(r.content);
    expect(r.total_lines).toBe(400_000);
  });
});
