// Error mapping of the local backend with injected errno values (W-TC16 and the parts of the
// error tables a root-run suite cannot provoke for real).
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createLocalFiles, FileToolError } from "../../src/editor-files/access/index.js";
import { mapReadError, mapWriteError } from "../../src/editor-files/access/errors.js";

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: injected`), { code });

async function caught(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof FileToolError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error("expected a FileToolError");
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "fs-errors-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const tmpLeft = (): string[] => fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"));

describe("write errors (local backend, injected)", () => {
  it("W-TC16 ENOSPC while writing: -32005, temp removed, old file intact", async () => {
    const f = path.join(dir, "full.txt");
    fs.writeFileSync(f, "keep me\n");
    const realOpen = fsp.open.bind(fsp);
    vi.spyOn(fsp, "open").mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
      const fh = await realOpen(...args);
      if (String(args[0]).endsWith(".tmp")) fh.writeFile = () => Promise.reject(errno("ENOSPC"));
      return fh;
    });
    expect(await caught(createLocalFiles().write({ path: f, content: "héllo" }))).toEqual({
      code: -32005,
      message: `Disk full: cannot write 6 bytes to ${f}`,
    });
    expect(fs.readFileSync(f, "utf8")).toBe("keep me\n");
    expect(tmpLeft()).toEqual([]);
  });

  it("W-TC16 EROFS: -32002 Read-only filesystem", async () => {
    const f = path.join(dir, "ro.txt");
    vi.spyOn(fsp, "open").mockRejectedValue(errno("EROFS"));
    expect(await caught(createLocalFiles().write({ path: f, content: "x" }))).toEqual({
      code: -32002,
      message: `Read-only filesystem: ${f}`,
    });
  });

  it.each(["EACCES", "EPERM"])("W-TC4 %s: -32002 Permission denied", async (code) => {
    const f = path.join(dir, "denied.txt");
    vi.spyOn(fsp, "open").mockRejectedValue(errno(code));
    expect(await caught(createLocalFiles().write({ path: f, content: "x" }))).toEqual({
      code: -32002,
      message: `Permission denied: ${f}`,
    });
  });

  it("rename failure removes the temp file", async () => {
    const f = path.join(dir, "rename.txt");
    fs.writeFileSync(f, "old\n");
    vi.spyOn(fsp, "rename").mockRejectedValue(errno("EACCES"));
    expect(await caught(createLocalFiles().write({ path: f, content: "new\n" }))).toMatchObject({ code: -32002 });
    expect(fs.readFileSync(f, "utf8")).toBe("old\n");
    expect(tmpLeft()).toEqual([]);
  });
});

describe("read errors (local backend, injected)", () => {
  it("EACCES on open: -32002 Permission denied", async () => {
    const f = path.join(dir, "secret.txt");
    fs.writeFileSync(f, "s\n");
    vi.spyOn(fsp, "open").mockRejectedValue(errno("EACCES"));
    expect(await caught(createLocalFiles().read({ path: f }))).toEqual({
      code: -32002,
      message: `Permission denied: ${f}`,
    });
  });

  it("EIO while reading: -32603", async () => {
    const f = path.join(dir, "eio.txt");
    fs.writeFileSync(f, "s\n");
    const realOpen = fsp.open.bind(fsp);
    vi.spyOn(fsp, "open").mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
      const fh = await realOpen(...args);
      fh.read = () => Promise.reject(errno("EIO"));
      return fh;
    });
    expect(await caught(createLocalFiles().read({ path: f }))).toEqual({
      code: -32603,
      message: `Cannot read ${f}: EIO`,
    });
  });
});

describe("errno tables", () => {
  it.each([
    ["ENOENT", -32001, "File not found: /a/b.txt"],
    ["ENOTDIR", -32001, "File not found: /a/b.txt"],
    ["ELOOP", -32001, "File not found: /a/b.txt"],
    ["EACCES", -32002, "Permission denied: /a/b.txt"],
    ["EPERM", -32002, "Permission denied: /a/b.txt"],
    ["EISDIR", -32003, "/a/b.txt is not a file"],
    ["EIO", -32603, "Cannot read /a/b.txt: EIO"],
  ])("read %s -> %i", (code, expected, message) => {
    expect(mapReadError(errno(code), "/a/b.txt").toJSON()).toEqual({ code: expected, message });
  });

  it.each([
    ["EACCES", -32002, "Permission denied: /a/b.txt"],
    ["EPERM", -32002, "Permission denied: /a/b.txt"],
    ["EROFS", -32002, "Read-only filesystem: /a/b.txt"],
    ["ENOENT", -32001, "Parent directory not found: /a"],
    ["ENOTDIR", -32001, "Parent directory not found: /a"],
    ["EISDIR", -32003, "/a/b.txt is a directory"],
    ["ENOSPC", -32005, "Disk full: cannot write 42 bytes to /a/b.txt"],
    ["EDQUOT", -32005, "Disk full: cannot write 42 bytes to /a/b.txt"],
    ["EIO", -32603, "Cannot write /a/b.txt: EIO"],
  ])("write %s -> %i", (code, expected, message) => {
    expect(mapWriteError(errno(code), "/a/b.txt", 42).toJSON()).toEqual({ code: expected, message });
  });
});
