// How transcripts reach the disk (issue 26): readable by their owner only, whatever was there.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writePrivateFile } from "../../tools/transcripts/private-file.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const fresh = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), "cca-private-file-"));
  dirs.push(d);
  return d;
};
const modeOf = (f: string): number => statSync(f).mode & 0o777;

describe.runIf(process.platform !== "win32")("writePrivateFile", () => {
  it("a rename that fails (the name is a folder's) leaves no temp copy of the text beside it", async () => {
    const d = fresh();
    const f = path.join(d, "a-folder");
    mkdirSync(f);
    await expect(writePrivateFile(f, "secret text\n")).rejects.toThrow();
    expect(readdirSync(d)).toEqual(["a-folder"]);
  });

  it("creates the file with mode 0600", async () => {
    const f = path.join(fresh(), "t.jsonl");
    await writePrivateFile(f, "one\n");
    expect(readFileSync(f, "utf8")).toBe("one\n");
    expect(modeOf(f)).toBe(0o600);
  });

  it("replaces a file others could read with one they cannot, and never reuses a temp file left behind", async () => {
    const f = path.join(fresh(), "t.jsonl");
    writeFileSync(f, "old\n");
    chmodSync(f, 0o644);
    writeFileSync(`${f}.tmp`, "stale\n");
    chmodSync(`${f}.tmp`, 0o666);
    await writePrivateFile(f, "new\n");
    expect(readFileSync(f, "utf8")).toBe("new\n");
    expect(modeOf(f)).toBe(0o600);
    expect(() => statSync(`${f}.tmp`)).toThrow();
  });
});
