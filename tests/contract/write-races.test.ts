// Issue 25 on both backends: the path the policy judged is the path written; a call given up on
// writes nothing; an edit the user undid in the editor is reported once.
// The window between the check and the write is hooked as fs-faults does: node:fs/promises (the
// object src/editor-files/access uses) is spied on, and the swap happens when the write path stats its target.
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createFileAccess,
  type FileAccess,
  type FileChange,
  type SessionMode,
} from "../../src/editor-files/access/index.js";
import { BACKENDS, FakeEditor, toolError } from "./helpers.js";

const P = (...body: string[]): string => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");

describe.each(BACKENDS)("write races [%s]", (backend) => {
  let root: string;
  let ws: string;
  let outside: string;
  let editor: FakeEditor | undefined;
  let asked: FileChange[][];
  let answer: boolean | (() => Promise<boolean>);
  let mode: SessionMode;
  let fa: FileAccess;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `write-races-${backend}-`)));
    ws = path.join(root, "ws");
    outside = path.join(root, "outside");
    fs.mkdirSync(path.join(ws, "sub"), { recursive: true });
    fs.mkdirSync(outside);
    editor = backend === "client" ? new FakeEditor() : undefined;
    asked = [];
    answer = false;
    mode = "auto";
    fa = createFileAccess({
      ...(editor ? { editor } : {}),
      policy: {
        mode: () => mode,
        roots: () => [ws],
        ask: async ({ changes }) => {
          asked.push(changes);
          return typeof answer === "function" ? answer() : answer;
        },
      },
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Written anywhere: on disk, or (client) in the editor's buffers. */
  const writtenTo = (): string[] => [
    ...(editor?.calls.filter((c) => c.op === "write").map((c) => c.path) ?? []),
    ...fs.readdirSync(outside).map((f) => path.join(outside, f)),
  ];

  /** The first time the write path stats `target`, `ws/sub` becomes a link to the outside folder. */
  function swapSubForLinkWhenStatted(target: string): void {
    const realStat = fsp.stat.bind(fsp);
    let swapped = false;
    vi.spyOn(fsp, "stat").mockImplementation(async (p, opts) => {
      if (!swapped && String(p) === target) {
        swapped = true;
        fs.renameSync(path.join(ws, "sub"), path.join(ws, "sub-was"));
        fs.symlinkSync(outside, path.join(ws, "sub"));
      }
      return realStat(p, opts as never);
    });
  }

  it("a folder swapped for a link between the check and the write: refused (-32008), nothing written anywhere", async () => {
    const target = path.join(ws, "sub", "f.txt");
    swapSubForLinkWhenStatted(target);
    const e = await toolError(() => fa.write({ path: target, content: "payload\n" }));
    expect(e.code).toBe(-32008);
    expect(e.message).toContain(`${target} changed between the permission check and the write`);
    expect(writtenTo()).toEqual([]);
    expect(fs.existsSync(path.join(ws, "sub-was", "f.txt"))).toBe(false);
  });

  it("the same swap under apply_patch: refused, no file written", async () => {
    const target = path.join(ws, "sub", "g.txt");
    swapSubForLinkWhenStatted(target);
    const e = await toolError(() => fa.applyPatch({ input: P(`*** Add File: ${target}`, "+payload") }, { cwd: ws }));
    expect(e.code).toBe(-32008);
    expect(writtenTo()).toEqual([]);
  });

  it.skipIf(process.platform !== "linux")(
    "a patch's Add into new folders, the parent swapped for a link as the first folder is made: refused, no folder made outside",
    async () => {
      const target = path.join(ws, "sub", "new", "deeper", "h.txt");
      const realMkdir = fsp.mkdir.bind(fsp);
      let swapped = false;
      const madeOutside: string[] = [];
      vi.spyOn(fsp, "mkdir").mockImplementation(async (p, opts) => {
        if (!swapped) {
          swapped = true;
          fs.renameSync(path.join(ws, "sub"), path.join(ws, "sub-was"));
          fs.symlinkSync(outside, path.join(ws, "sub"));
        }
        const made = await realMkdir(p, opts as never);
        // Looked at as each folder is made: a rollback that removes it again by its path would hide it.
        madeOutside.push(...fs.readdirSync(outside));
        return made;
      });
      const e = await toolError(() => fa.applyPatch({ input: P(`*** Add File: ${target}`, "+payload") }, { cwd: ws }));
      expect(swapped).toBe(true);
      expect(madeOutside).toEqual([]);
      expect(e.code).toBe(-32008);
      expect(writtenTo()).toEqual([]);
    },
  );

  it("the path written is the canonical one the policy judged (a link inside the workspace to outside asks)", async () => {
    fs.symlinkSync(outside, path.join(ws, "out-link"));
    const viaLink = path.join(ws, "out-link", "h.txt");
    expect(await toolError(() => fa.write({ path: viaLink, content: "x\n" }))).toEqual({
      code: -32002,
      message: `Permission denied: ${viaLink} (outside the workspace; not approved)`,
    });
    expect(asked[0]?.map((c) => c.path)).toEqual([path.join(outside, "h.txt")]);
    answer = true;
    await fa.write({ path: viaLink, content: "x\n" });
    if (editor)
      expect(editor.calls.filter((c) => c.op === "write").map((c) => c.path)).toEqual([path.join(outside, "h.txt")]);
    else expect(fs.readFileSync(path.join(outside, "h.txt"), "utf8")).toBe("x\n");
  });

  it("a file with another hard link counts as outside: asked, refused without a yes, written with one", async () => {
    const inside = path.join(ws, "linked.txt");
    fs.writeFileSync(inside, "before\n");
    fs.linkSync(inside, path.join(outside, "other-name.txt"));
    editor?.set(inside, "before\n");
    expect(await toolError(() => fa.write({ path: inside, content: "after\n" }))).toEqual({
      code: -32002,
      message: `Permission denied: ${inside} (hard-linked elsewhere; not approved)`,
    });
    expect(asked).toHaveLength(1);
    expect(fs.readFileSync(path.join(outside, "other-name.txt"), "utf8")).toBe("before\n");
    expect(
      await toolError(() =>
        fa.applyPatch({ input: P(`*** Update File: ${inside}`, "@@", "-before", "+after") }, { cwd: ws }),
      ),
    ).toMatchObject({ code: -32002 });
    expect(asked).toHaveLength(2);
    answer = true;
    await fa.write({ path: inside, content: "after\n" });
    if (editor) expect(editor.get(inside)).toBe("after\n");
    else expect(fs.readFileSync(inside, "utf8")).toBe("after\n");
  });

  it("a call aborted before its write writes nothing (-32007); one aborted while its prompt is open withdraws it", async () => {
    const target = path.join(outside, "late.txt");
    const early = new AbortController();
    early.abort();
    expect(
      await toolError(() => fa.write({ path: path.join(ws, "x.txt"), content: "x" }, { signal: early.signal })),
    ).toMatchObject({ code: -32007 });
    const call = new AbortController();
    // The user answers yes, but only after the call was given up on (Codex's deadline).
    answer = async () => {
      call.abort();
      return true;
    };
    const e = await toolError(() => fa.write({ path: target, content: "late\n" }, { signal: call.signal }));
    expect(e.code).toBe(-32007);
    expect(e.message).toContain("Nothing was changed");
    expect(writtenTo()).toEqual([]);
    expect(fs.existsSync(path.join(ws, "x.txt"))).toBe(false);
  });
});

describe("editor-only: late answers and undone edits", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "write-drift-")));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a patch given up on while the editor applies its first file puts that file back: nothing stays written", async () => {
    const editor = new FakeEditor();
    const a = path.join(dir, "a.txt");
    const b = path.join(dir, "b.txt");
    fs.writeFileSync(a, "a\n");
    fs.writeFileSync(b, "b\n");
    editor.set(a, "a\n");
    editor.set(b, "b\n");
    const call = new AbortController();
    const write = editor.writeTextFile.bind(editor);
    let writes = 0;
    editor.writeTextFile = async (p) => {
      if (++writes === 1) call.abort(); // the deadline passes while the editor writes a.txt
      return write(p);
    };
    const fa = createFileAccess({ editor });
    const e = await toolError(() =>
      fa.applyPatch(
        { input: P(`*** Update File: ${a}`, "@@", "-a", "+A", `*** Update File: ${b}`, "@@", "-b", "+B") },
        { cwd: dir, signal: call.signal },
      ),
    );
    expect(e.code).toBe(-32007);
    expect(e.message).toContain("put back");
    expect([editor.get(a), editor.get(b)]).toEqual(["a\n", "b\n"]);
  });

  it("an edit the user undid is reported once, on the next whole read and at the next check; a write that landed after the call was given up is reported too", async () => {
    const editor = new FakeEditor();
    const write = editor.writeTextFile.bind(editor);
    let beforeEditorWrite = (): void => undefined;
    editor.writeTextFile = async (p) => {
      beforeEditorWrite();
      return write(p);
    };
    const fa = createFileAccess({ editor });
    const f = path.join(dir, "f.txt");
    const g = path.join(dir, "g.txt");
    const h = path.join(dir, "h.txt");
    for (const p of [f, g, h]) fs.writeFileSync(p, "old\n");
    for (const p of [f, g, h]) editor.set(p, "old\n");
    await fa.write({ path: f, content: "new f\n" });
    await fa.write({ path: g, content: "new g\n" });
    // h: the editor applies the write after the call was given up on (the model was told it failed).
    const call = new AbortController();
    beforeEditorWrite = () => call.abort();
    const late = await toolError(() => fa.write({ path: h, content: "new h\n" }, { signal: call.signal }));
    expect(late).toMatchObject({ code: -32007, message: expect.stringContaining("the editor applied the write") });
    beforeEditorWrite = () => undefined;

    editor.set(f, "old\n"); // the user rejected the edit in the review panel
    const read = await fa.read({ path: f });
    expect(read.content).toBe("old\n");
    expect(read.edit_undone).toContain(`${f}: the user rejected, reverted or changed your edit`);
    expect((await fa.read({ path: f })).edit_undone).toBeUndefined(); // told once

    editor.set(g, "new g\nplus the user's line\n");
    const drift = await fa.takeDrift();
    expect(drift).toEqual([
      { path: g, state: "changed" },
      { path: h, state: "landed-late" },
    ]);
    expect(await fa.takeDrift()).toEqual([]); // each edit is checked once
  });
});
