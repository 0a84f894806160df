// The adapter's private cache directory (catalog cache, the agent's code cache): created for this user
// only, and refused when someone could have prepared it (a shared temp directory).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cacheRoot, privateCacheDir } from "../../src/config/cache-dir.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
const root = (): string => {
  const r = mkdtempSync(path.join(os.tmpdir(), "cca-cache-root-"));
  roots.push(r);
  return r;
};
const name = `codex-cli-acp-cache-${process.getuid?.() ?? "user"}`;

describe.runIf(process.platform !== "win32")("privateCacheDir", () => {
  it("creates the directory for this user alone and returns it", () => {
    const r = root();
    const dir = privateCacheDir(r);
    expect(dir).toBe(path.join(r, name));
    expect(statSync(dir!).mode & 0o777).toBe(0o700);
    expect(privateCacheDir(r)).toBe(dir); // and reuses it
  });

  it("refuses one that other users can write to (prepared by someone else)", () => {
    const r = root();
    mkdirSync(path.join(r, name));
    chmodSync(path.join(r, name), 0o777);
    expect(privateCacheDir(r)).toBeUndefined();
  });

  it("refuses a name that is not a directory", () => {
    const r = root();
    writeFileSync(path.join(r, name), "x");
    expect(privateCacheDir(r)).toBeUndefined();
  });
});

describe("privateCacheDir per host (the platform passed in)", () => {
  it("macOS: as on Linux, this user's folder under the temp dir, refused when others may write to it", () => {
    const r = root();
    const mac = { platform: "darwin" as const, env: {}, uid: process.getuid?.() };
    expect(privateCacheDir(r, mac)).toBe(path.join(r, name));
    chmodSync(path.join(r, name), 0o777);
    expect(privateCacheDir(r, mac)).toBeUndefined();
  });

  it("Windows: under %LOCALAPPDATA% (the user's own profile, private by its ACL), without the POSIX mode check Node's 0o777 for every folder there would always fail", () => {
    const local = root();
    const win = { platform: "win32" as const, env: { LOCALAPPDATA: local }, uid: undefined };
    expect(cacheRoot(win)).toBe(local);
    const dir = privateCacheDir(undefined, win);
    expect(dir).toBe(path.join(local, "codex-cli-acp-cache"));
    chmodSync(dir!, 0o777); // what Node reports for a Windows folder
    expect(privateCacheDir(undefined, win)).toBe(dir);
    const other = root();
    writeFileSync(path.join(other, "codex-cli-acp-cache"), "x");
    expect(privateCacheDir(other, win)).toBeUndefined(); // still a directory, or nothing
  });

  it("the root: %LOCALAPPDATA% on Windows when set, else the temp dir; the temp dir elsewhere", () => {
    expect(cacheRoot({ platform: "win32", env: {}, uid: undefined })).toBe(os.tmpdir());
    expect(cacheRoot({ platform: "linux", env: { LOCALAPPDATA: "/x" }, uid: 1000 })).toBe(os.tmpdir());
    expect(cacheRoot({ platform: "darwin", env: {}, uid: 501 })).toBe(os.tmpdir());
  });
});
