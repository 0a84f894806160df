// The atomic write's last step (src/editor-files/access/local.ts): on Windows a virus scanner or
// the search indexer holding the new file for a moment makes the rename over the target fail
// (EPERM, EACCES, EBUSY) where it would succeed a moment later; there it is tried again for a
// short while. On POSIX such an error is a real refusal, reported at once. The platform is passed in.
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FileToolError } from "../../src/editor-files/access/index.js";
import { writeAtomic } from "../../src/editor-files/access/local.js";

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "fs-rename-")));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** fsp.rename failing with `code` for the first `failures` calls (Infinity: always). */
function renameRefused(code: string, failures: number) {
  const real = fsp.rename.bind(fsp);
  let left = failures;
  return vi.spyOn(fsp, "rename").mockImplementation(async (from, to) => {
    if (left-- > 0) throw Object.assign(new Error(`${code}: operation not permitted, rename`), { code });
    return real(from, to);
  });
}

const leftovers = (): string[] => fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"));

describe("writeAtomic's rename", () => {
  it.each(["EPERM", "EACCES", "EBUSY"])("Windows: %s for a moment, then the write lands", async (code) => {
    const target = path.join(dir, "a.txt");
    fs.writeFileSync(target, "old\n");
    const rename = renameRefused(code, 2);
    await writeAtomic(target, "new\n", fs.statSync(target), target, "win32");
    expect(fs.readFileSync(target, "utf8")).toBe("new\n");
    expect(rename).toHaveBeenCalledTimes(3);
    expect(leftovers()).toEqual([]);
  });

  it("Windows: a refusal that lasts is reported as the write contract says, the old file and no temp file left", async () => {
    const target = path.join(dir, "held.txt");
    fs.writeFileSync(target, "old\n");
    const rename = renameRefused("EPERM", Infinity);
    const err = await writeAtomic(target, "new\n", fs.statSync(target), target, "win32").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileToolError);
    expect(err).toMatchObject({ code: -32002, message: `Permission denied: ${target}` });
    expect(rename.mock.calls.length).toBeGreaterThan(1);
    expect(fs.readFileSync(target, "utf8")).toBe("old\n");
    expect(leftovers()).toEqual([]);
  });

  it("POSIX: refused once is refused (not tried again)", async () => {
    for (const platform of ["linux", "darwin"] as const) {
      const target = path.join(dir, `${platform}.txt`);
      const rename = renameRefused("EPERM", 1);
      await expect(writeAtomic(target, "new\n", undefined, target, platform)).rejects.toMatchObject({ code: -32002 });
      expect(rename).toHaveBeenCalledTimes(1);
      expect(fs.existsSync(target)).toBe(false);
      vi.restoreAllMocks();
    }
    expect(leftovers()).toEqual([]);
  });
});
