// decideWrite: modes, roots, "..", symlink escapes, prefixes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { askReason, canonicalPath, decideWrite, isSystemPath } from "../../src/editor-files/access/index.js";

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

  it("auto asks for the folders Codex's own sandbox keeps read-only in the workspace (.git, .codex, .agents), at any depth, and says why", () => {
    for (const p of [
      ".git/hooks/pre-commit",
      ".codex/config.toml",
      ".agents/skills/x/SKILL.md",
      "vendor/lib/.git/config",
      "sub/.codex/config.toml",
      ".git",
    ]) {
      expect(auto(path.join(root, p)), p).toBe("ask");
      expect(askReason(canonicalPath(path.join(root, p)), [root]), p).toBe(
        "in a protected folder (.git, .codex, .agents)",
      );
    }
    // A name that only starts like one is an ordinary file; so is the folder's name in a file name.
    for (const p of [".github/workflows/ci.yml", ".gitignore", ".codexrc", "src/.agentsx/a", "docs/git/.keep"])
      expect(auto(path.join(root, p)), p).toBe("allow");
    // Outside the workspace it is asked as outside; full access allows it as Codex's sandbox does.
    expect(askReason(canonicalPath(path.join(outside, ".git", "x")), [root])).toBe("outside the workspace");
    expect(decideWrite({ mode: "full-access", roots: [root], path: path.join(root, ".git", "config") })).toBe("allow");
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

describe("isSystemPath per host", () => {
  it("Linux (and macOS): the kernel and device trees, through links", () => {
    expect(isSystemPath("/proc/self/environ", "linux")).toBe(true);
    expect(isSystemPath("/dev/sda", "darwin")).toBe(true);
    expect(isSystemPath(path.join(root, "a.txt"), "linux")).toBe(false);
    expect(isSystemPath(path.join(root, "nul"), "linux")).toBe(false); // a plain name off Windows
  });

  it("Windows: the device namespace and the reserved device names in any folder; /proc is just a folder there", () => {
    expect(isSystemPath("\\\\.\\pipe\\codex", "win32")).toBe(true);
    expect(isSystemPath("\\\\?\\GLOBALROOT\\Device\\Null", "win32")).toBe(true);
    expect(isSystemPath("C:\\ws\\nul", "win32")).toBe(true);
    expect(isSystemPath("C:\\ws\\CON.txt", "win32")).toBe(true);
    expect(isSystemPath("C:\\ws\\src\\main.ts", "win32")).toBe(false);
    expect(isSystemPath("\\\\?\\C:\\ws\\main.ts", "win32")).toBe(false);
    expect(isSystemPath("/proc/self/environ", "win32")).toBe(false);
  });
});

describe("workspace roots on a case-insensitive volume (macOS's default, Windows')", () => {
  // fs.realpathSync.native as macOS's realpath(3) and Windows' GetFinalPathNameByHandle answer
  // there: any case finds the entry, and the answer is the case stored on disk.
  afterEach(() => vi.restoreAllMocks());
  const real = fs.realpathSync.native;
  function caseInsensitiveVolume(): void {
    vi.spyOn(fs.realpathSync, "native").mockImplementation((p: fs.PathLike) => {
      let onDisk = "/";
      for (const part of String(p).split("/").filter(Boolean)) {
        const entry = fs.readdirSync(onDisk).find((e) => e.toLowerCase() === part.toLowerCase());
        if (entry === undefined) throw Object.assign(new Error(`ENOENT: ${String(p)}`), { code: "ENOENT" });
        onDisk = real(path.join(onDisk, entry));
      }
      return onDisk;
    });
  }

  it("a path spelled in another case is inside its root (existing file, new file, new folder), and a sibling is still outside", () => {
    fs.mkdirSync(path.join(base, "Proj", "Src"), { recursive: true });
    fs.writeFileSync(path.join(base, "Proj", "Src", "Main.ts"), "x");
    const project = path.join(base, "Proj");
    caseInsensitiveVolume();
    expect(auto(path.join(base, "proj", "src", "main.TS"), [project])).toBe("allow");
    expect(auto(path.join(base, "PROJ", "new.txt"), [project])).toBe("allow");
    expect(auto(path.join(base, "proj", "new-dir", "deeper", "x.txt"), [project])).toBe("allow");
    expect(auto(path.join(base, "Proj", "a.txt"), [path.join(base, "proj")])).toBe("allow"); // the root spelled otherwise
    expect(auto(path.join(base, "proj-other", "x.txt"), [project])).toBe("ask");
    // The path judged (and written) is the one on disk.
    expect(canonicalPath(path.join(base, "proj", "src", "main.TS"))).toBe(path.join(base, "Proj", "Src", "Main.ts"));
  });
});
