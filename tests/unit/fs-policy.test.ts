// decideWrite: modes, roots, "..", symlink escapes, prefixes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalPath, decideWrite } from "../../src/editor-files/access/index.js";

let base: string;
let root: string;
let outside: string;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "fs-policy-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "secret.txt"), "s");
  fs.symlinkSync(outside, path.join(root, "escape")); // dir link out of the root
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "secret-link.txt")); // file link out
  fs.symlinkSync(path.join(outside, "not-yet.txt"), path.join(root, "dangling-out.txt")); // dangling link out
  fs.symlinkSync(path.join(root, "src"), path.join(outside, "into-root")); // link from outside into the root
  fs.mkdirSync(path.join(base, "wsx"));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const auto = (p: string, roots = [root]): string => decideWrite({ mode: "auto", roots, path: p });

describe("decideWrite", () => {
  it("read-only denies everything, full-access allows everything", () => {
    expect(decideWrite({ mode: "read-only", roots: [root], path: path.join(root, "a.txt") })).toBe("deny");
    expect(decideWrite({ mode: "full-access", roots: [root], path: "/etc/passwd" })).toBe("allow");
    expect(decideWrite({ mode: "full-access", roots: [], path: path.join(outside, "x") })).toBe("allow");
  });

  it("auto allows inside a root, including new nested paths and the root itself", () => {
    expect(auto(path.join(root, "a.txt"))).toBe("allow");
    expect(auto(path.join(root, "src", "deep", "new", "file.ts"))).toBe("allow");
    expect(auto(root)).toBe("allow");
    expect(auto(path.join(outside, "into-root", "ok.ts"))).toBe("allow"); // resolves into the root
  });

  it("auto asks outside every root", () => {
    expect(auto(path.join(outside, "x.txt"))).toBe("ask");
    expect(auto("/etc/passwd")).toBe("ask");
    expect(auto(path.join(root, "a.txt"), [])).toBe("ask");
  });

  it('".." cannot escape', () => {
    expect(auto(path.join(root, "..", "outside", "x.txt"))).toBe("ask");
    expect(auto(`${root}/src/../../outside/x.txt`)).toBe("ask");
    expect(auto(`${root}/src/../a.txt`)).toBe("allow");
    expect(auto(`${root}/missing/../../x.txt`)).toBe("ask");
  });

  it('a symlink followed by ".." is resolved as the kernel does (no lexical folding)', () => {
    // ws/deep -> outside/a/b; "ws/deep/../x" is outside/a/x for the kernel, not ws/x.
    fs.mkdirSync(path.join(outside, "a", "b"), { recursive: true });
    fs.symlinkSync(path.join(outside, "a", "b"), path.join(root, "deep"));
    const sneaky = `${root}/deep/../x.txt`;
    expect(canonicalPath(sneaky)).toBe(path.join(outside, "a", "x.txt"));
    expect(auto(sneaky)).toBe("ask");
    expect(auto(`${root}/deep/../../../ws/src/ok.txt`)).toBe("allow");
  });

  it("symlinks cannot escape (directory, file and dangling links)", () => {
    expect(auto(path.join(root, "escape", "x.txt"))).toBe("ask");
    expect(auto(path.join(root, "escape", "new-dir", "x.txt"))).toBe("ask");
    expect(auto(path.join(root, "secret-link.txt"))).toBe("ask");
    expect(auto(path.join(root, "dangling-out.txt"))).toBe("ask");
  });

  it("a sibling sharing the root's prefix is outside", () => {
    expect(auto(path.join(base, "wsx", "a.txt"))).toBe("ask");
    expect(auto(`${root}x/a.txt`)).toBe("ask");
  });

  it("roots are canonicalised too, several roots, relative roots ignored", () => {
    const linkedRoot = path.join(base, "ws-link");
    fs.symlinkSync(root, linkedRoot);
    expect(auto(path.join(root, "a.txt"), [linkedRoot])).toBe("allow");
    expect(auto(path.join(linkedRoot, "a.txt"), [root])).toBe("allow");
    expect(auto(path.join(outside, "x"), [root, outside])).toBe("allow");
    expect(auto(path.join(root, "a.txt"), ["ws"])).toBe("ask");
  });

  it("canonicalPath resolves the nearest existing ancestor", () => {
    expect(canonicalPath(path.join(root, "escape", "n", "m.txt"))).toBe(path.join(outside, "n", "m.txt"));
    expect(canonicalPath(path.join(root, "dangling-out.txt"))).toBe(path.join(outside, "not-yet.txt"));
  });
});
