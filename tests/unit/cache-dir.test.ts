// The adapter's private cache directory (catalog cache, compile cache): created for this user
// only, and refused when someone could have prepared it (a shared temp directory).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { privateCacheDir } from "../../src/config/index.js";

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
