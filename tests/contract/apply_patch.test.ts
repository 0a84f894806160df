// Every case of contracts/apply_patch.md, against both backends. Client backend: hunks match the
// editor's buffers (which differ from the disk), results land in the editor, the disk is only
// touched by Delete and by the source side of a Move.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileAccess, type FileChange, type SessionMode } from "../../src/editor-files/access/index.js";
import { BACKENDS, disk, Env, FakeEditor, toolError } from "./helpers.js";

const P = (...body: string[]): { input: string } => ({
  input: ["*** Begin Patch", ...body, "*** End Patch"].join("\n"),
});

describe.each(BACKENDS)("apply_patch [%s]", (backend) => {
  let env: Env;
  beforeEach(() => {
    env = new Env(backend);
  });
  afterEach(() => env.cleanup());
  const apply = (patch: { input: string }) => env.fa.applyPatch(patch, { cwd: env.dir });

  it("P-TC1 Update on the editor's text (the disk is untouched on the client)", async () => {
    const f = env.setFile("a.ts", "const a = 1;\nconst b = 2;\n");
    const diskBefore = disk(f);
    const r = await apply(P(`*** Update File: ${f}`, "@@", " const a = 1;", "-const b = 2;", "+const b = 3;"));
    expect(r).toEqual({
      files: [
        { path: f, action: "update", oldText: "const a = 1;\nconst b = 2;\n", newText: "const a = 1;\nconst b = 3;\n" },
      ],
      servedBy: backend,
    });
    expect(env.stored(f)).toBe("const a = 1;\nconst b = 3;\n");
    if (env.editor) expect(disk(f)).toEqual(diskBefore);
  });

  it("P-TC2 Add (creating parent directories), Delete and Move", async () => {
    const gone = env.setFile("gone.txt", "bye\n");
    const from = env.setFile("from.txt", "moving\nline\n");
    const added = env.p("deep", "er", "new.txt");
    const to = env.p("to.txt");
    const r = await apply(
      P(
        `*** Add File: ${added}`,
        "+hello",
        "+",
        `*** Delete File: ${gone}`,
        `*** Update File: ${from}`,
        `*** Move to: ${to}`,
        "@@",
        " moving",
        "-line",
        "+moved",
      ),
    );
    expect(r.files).toEqual([
      { path: added, action: "add", oldText: null, newText: "hello\n\n" },
      { path: gone, action: "delete", oldText: "bye\n", newText: null },
      { path: from, action: "move", movedTo: to, oldText: "moving\nline\n", newText: "moving\nmoved\n" },
    ]);
    expect(env.stored(added)).toBe("hello\n\n");
    expect(env.stored(to)).toBe("moving\nmoved\n");
    expect(disk(gone)).toBeUndefined();
    expect(disk(from)).toBeUndefined();
    if (env.editor) {
      expect(disk(added)).toBeUndefined(); // the editor has it; the directory exists for it
      expect(fs.statSync(path.dirname(added)).isDirectory()).toBe(true);
    }
  });

  it("P-TC3 grammar: heredoc, padded markers, CRLF patch text, no first @@, anchors, End of File, a file named twice", async () => {
    const f = env.setFile("g.py", "def one():\n    return 0\n\ndef two():\n    return 0\n# end\n");
    const text = [
      "<<'EOF'",
      " *** Begin Patch ",
      `*** Update File: ${f}`,
      " def one():",
      "-    return 0",
      "+    return 1",
      "@@ def two():",
      "-    return 0",
      "+    return 2",
      "@@",
      "-# end",
      "+# the end",
      "*** End of File",
      `*** Update File: ${f}`,
      "@@",
      " def one():",
      "+    # first",
      "*** End Patch",
      "EOF",
    ].join("\r\n");
    await apply({ input: text });
    expect(env.stored(f)).toBe("def one():\n    # first\n    return 1\n\ndef two():\n    return 2\n# the end\n");
  });

  it("P-TC4 fuzzy context: whitespace and typographic punctuation match, context keeps the file's text", async () => {
    const f = env.setFile("fuzzy.txt", "  indented();   \nsay(\u201Chello\u201D) \u2014 done\nlast\n");
    await apply(P(`*** Update File: ${f}`, "@@", " indented();", ' say("hello") - done', "-last", "+final"));
    expect(env.stored(f)).toBe("  indented();   \nsay(\u201Chello\u201D) \u2014 done\nfinal\n");
  });

  it("P-TC5 a CRLF file stays CRLF", async () => {
    const f = env.setFile("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    await apply(P(`*** Update File: ${f}`, "@@", " one", "-two", "+2", "+2b", " three"));
    expect(env.stored(f)).toBe("one\r\n2\r\n2b\r\nthree\r\n");
  });

  it("P-TC6 a file without a final newline stays without one", async () => {
    const f = env.setFile("nofinal.txt", "a\nb\nc");
    await apply(P(`*** Update File: ${f}`, "@@", " b", "-c", "+C"));
    expect(env.stored(f)).toBe("a\nb\nC");
    await apply(P(`*** Update File: ${f}`, "@@", "+d"));
    expect(env.stored(f)).toBe("a\nb\nC\nd");
  });

  it("P-TC7 multi-byte text", async () => {
    const f = env.setFile("utf8.txt", "café ☕\n日本語のテキスト\n😀 emoji\n");
    await apply(P(`*** Update File: ${f}`, "@@", " café ☕", "-日本語のテキスト", "+中文文本 🚀", " 😀 emoji"));
    expect(env.stored(f)).toBe("café ☕\n中文文本 🚀\n😀 emoji\n");
  });

  it("P-TC8 a 5 MB file: hunks at the start, the middle and the end", async () => {
    const lines = Array.from({ length: 80_000 }, (_, i) => `line ${i} ${"x".repeat(55)}`);
    const f = env.setFile("big.txt", `${lines.join("\n")}\n`);
    expect(Buffer.byteLength(env.stored(f) ?? "")).toBeGreaterThan(5_000_000);
    await apply(
      P(
        `*** Update File: ${f}`,
        "@@",
        `-${lines[0]}`,
        "+FIRST",
        "@@",
        ` ${lines[40_000]}`,
        `-${lines[40_001]}`,
        "+MIDDLE",
        "@@",
        `-${lines[79_999]}`,
        "+LAST",
        "*** End of File",
      ),
    );
    const out = (env.stored(f) ?? "").split("\n");
    expect([out[0], out[40_001], out[79_999], out.length]).toEqual(["FIRST", "MIDDLE", "LAST", 80_001]);
  });

  it("P-TC9 conflicting hunks: -32006 naming the file and the lines, nothing written", async () => {
    const f = env.setFile("c.txt", "a\nb\nc\n");
    const e = await toolError(() => apply(P(`*** Update File: ${f}`, "@@", "-a", "+A", "@@", "-a", "+AA")));
    expect(e.code).toBe(-32006);
    expect(e.message).toContain(
      `The patch does not apply to ${f} (hunk 2 of 2, patch line 6): these lines were not found below line 1:\n  a`,
    );
    expect(e.message).toContain("No file was changed.");
    expect(env.stored(f)).toBe("a\nb\nc\n");
  });

  it("P-TC10 a patch over 12 files applies whole, or (one bad hunk) not at all, Adds included", async () => {
    const files = Array.from({ length: 10 }, (_, i) => env.setFile(`f${i}.txt`, `file ${i}\nvalue ${i}\n`));
    const adds = [env.p("add1.txt"), env.p("add2.txt")];
    const body = (bad: boolean): string[] => [
      ...adds.flatMap((a) => [`*** Add File: ${a}`, "+added"]),
      ...files.flatMap((f, i) => [
        `*** Update File: ${f}`,
        "@@",
        ` file ${i}`,
        `-value ${bad && i === 9 ? "WRONG" : i}`,
        `+value ${i * 10 + 1}`,
      ]),
    ];
    const e = await toolError(() => apply(P(...body(true))));
    expect(e).toMatchObject({ code: -32006 });
    expect(e.message).toContain(files[9]!);
    for (const a of adds) expect(env.stored(a)).toBeUndefined();
    files.forEach((f, i) => expect(env.stored(f)).toBe(`file ${i}\nvalue ${i}\n`));
    const r = await apply(P(...body(false)));
    expect(r.files).toHaveLength(12);
    files.forEach((f, i) => expect(env.stored(f)).toBe(`file ${i}\nvalue ${i * 10 + 1}\n`));
  });

  it("P-TC11 relative paths resolve against the session's cwd", async () => {
    fs.mkdirSync(env.p("sub"));
    const f = env.setFile("sub/rel.txt", "x\n");
    const r = await apply(P("*** Update File: sub/rel.txt", "@@", "-x", "+y", "*** Add File: sub/new.txt", "+n"));
    expect(r.files.map((c) => c.path)).toEqual([f, env.p("sub", "new.txt")]);
    expect(env.stored(f)).toBe("y\n");
  });

  it("P-TC12 errors", async () => {
    const dir = env.p("adir");
    fs.mkdirSync(dir);
    const bin = env.p("bin.dat");
    fs.writeFileSync(bin, Buffer.from([1, 0, 2, 10]));
    if (env.editor) env.editor.set(bin, "\u0001\u0000\u0002\n");
    const missing = env.p("missing.txt");
    const cases: Array<[{ input: string } | Record<string, unknown>, number, string]> = [
      [{}, -32600, "Invalid params: input must be a string"],
      [{ input: 42 }, -32600, "Invalid params: input must be a string"],
      [{ input: "hello" }, -32600, "Invalid patch: line 1: the first line must be '*** Begin Patch'"],
      [P("*** Copy File: x"), -32600, "Invalid patch: line 2: '*** Copy File: x' is not a file operation"],
      [P(), -32600, "Invalid patch: it names no file to add, update or delete"],
      [P(`*** Update File: ${missing}`, "@@", "-a", "+b"), -32001, `File not found: ${missing}`],
      [P(`*** Delete File: ${missing}`), -32001, `File not found: ${missing}`],
      [P(`*** Update File: ${dir}`, "@@", "-a", "+b"), -32003, `${dir} is a directory`],
      [P(`*** Update File: ${bin}`, "@@", "-a", "+b"), -32004, `Cannot read binary file: ${bin}`],
      [P(`*** Delete File: ${missing}`, `*** Add File: ${missing}`, "+x"), -32001, `File not found: ${missing}`],
    ];
    for (const [params, code, message] of cases) {
      const e = await toolError(() => env.fa.applyPatch(params as never, { cwd: env.dir }));
      expect(e.code, message).toBe(code);
      expect(e.message.startsWith(message), `${e.message} should start with ${message}`).toBe(true);
    }
    expect(env.stored(missing)).toBeUndefined();
  });

  it("P-TC13 policy: read-only refuses; outside the roots asks once for the whole patch; no writes nothing", async () => {
    const root = env.p("ws");
    fs.mkdirSync(root);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "patch-outside-"));
    try {
      let mode: SessionMode = "read-only";
      let answer = false;
      const asked: FileChange[][] = [];
      const fa = createFileAccess({
        ...(env.editor ? { editor: env.editor } : {}),
        policy: { mode: () => mode, roots: () => [root], ask: async ({ changes }) => (asked.push(changes), answer) },
      });
      const inside = path.join(root, "in.txt");
      const out1 = path.join(outside, "o1.txt");
      const out2 = path.join(outside, "o2.txt");
      const patch = P(`*** Add File: ${inside}`, "+in", `*** Add File: ${out1}`, "+o1", `*** Add File: ${out2}`, "+o2");
      expect(await toolError(() => fa.applyPatch(patch, { cwd: root }))).toEqual({
        code: -32002,
        message: `Permission denied: ${inside} (session mode is read-only)`,
      });
      mode = "auto";
      expect(await toolError(() => fa.applyPatch(patch, { cwd: root }))).toEqual({
        code: -32002,
        message: `Permission denied: ${out1} (outside the workspace; not approved)`,
      });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toEqual([
        { path: inside, oldText: null, newText: "in\n" },
        { path: out1, oldText: null, newText: "o1\n" },
        { path: out2, oldText: null, newText: "o2\n" },
      ]);
      for (const p of [inside, out1, out2]) expect(env.stored(p)).toBeUndefined();
      answer = true;
      await fa.applyPatch(patch, { cwd: root });
      expect(asked).toHaveLength(2);
      expect(env.stored(out2)).toBe("o2\n");
      mode = "full-access";
      const onDisk = path.join(outside, "on-disk.txt");
      fs.writeFileSync(onDisk, "x\n");
      if (env.editor) env.editor.set(onDisk, "x\n");
      await fa.applyPatch(P(`*** Delete File: ${onDisk}`), { cwd: root });
      expect(asked).toHaveLength(2);
      expect(disk(onDisk)).toBeUndefined();
      if (env.editor) {
        // Deletion is on disk (ACP has no delete): a file only the editor has cannot be deleted.
        expect(await toolError(() => fa.applyPatch(P(`*** Delete File: ${out1}`), { cwd: root }))).toEqual({
          code: -32001,
          message: `File not found: ${out1}`,
        });
      }
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("P-TC13b policy: .git, .codex and .agents inside the workspace ask in auto (Codex's sandbox keeps them read-only); Review Edits' refusal says so; a patch that changes nothing asks nothing", async () => {
    const root = env.p("ws-protected");
    fs.mkdirSync(path.join(root, ".git", "hooks"), { recursive: true });
    let mode: SessionMode = "auto";
    const asked: FileChange[][] = [];
    const fa = createFileAccess({
      ...(env.editor ? { editor: env.editor } : {}),
      policy: { mode: () => mode, roots: () => [root], ask: async ({ changes }) => (asked.push(changes), false) },
    });
    const hook = path.join(root, ".git", "hooks", "pre-commit");
    const config = path.join(root, ".codex", "config.toml");
    expect(await toolError(() => fa.applyPatch(P(`*** Add File: ${hook}`, "+#!/bin/sh"), { cwd: root }))).toEqual({
      code: -32002,
      message: `Permission denied: ${hook} (in a protected folder (.git, .codex, .agents); not approved)`,
    });
    expect(
      await toolError(() =>
        fa.applyPatch(P(`*** Add File: ${config}`, "+[features]", "+hooks = false"), { cwd: root }),
      ),
    ).toEqual({
      code: -32002,
      message: `Permission denied: ${config} (in a protected folder (.git, .codex, .agents); not approved)`,
    });
    expect(asked.map((c) => c.map((f) => f.path))).toEqual([[hook], [config]]);
    for (const p of [hook, config]) expect(env.stored(p)).toBeUndefined();
    expect(fs.existsSync(path.join(root, ".codex"))).toBe(false); // no folder left behind by a refused Add
    // Review Edits asks for every write; a no is said as such, not as "outside the workspace".
    mode = "review-edits";
    const plain = path.join(root, "plain.txt");
    expect(await toolError(() => fa.applyPatch(P(`*** Add File: ${plain}`, "+x"), { cwd: root }))).toEqual({
      code: -32002,
      message: `Permission denied: ${plain} (not approved in review)`,
    });
    // An Add of exactly what is there changes nothing: nothing to ask about, nothing written.
    fs.writeFileSync(plain, "same\n");
    if (env.editor) env.editor.set(plain, "same\n");
    const before = asked.length;
    await fa.applyPatch(P(`*** Update File: ${plain}`, "@@", "-same", "+same"), { cwd: root });
    expect(asked).toHaveLength(before);
    expect(fs.readFileSync(plain, "utf8")).toBe("same\n");
  });
});

describe("apply_patch [client] specifics", () => {
  it("P-TC14 the editor's answer is final: a refused read writes nothing; a refused second write puts the first back", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "patch-editor-")));
    try {
      const editor = new FakeEditor();
      const a = path.join(dir, "a.txt");
      const b = path.join(dir, "b.txt");
      for (const f of [a, b]) {
        fs.writeFileSync(f, "disk\n");
        editor.set(f, "buffer\n");
      }
      const fa = createFileAccess({ editor });
      const patch = P(`*** Update File: ${a}`, "@@", "-buffer", "+A", `*** Update File: ${b}`, "@@", "-buffer", "+B");
      editor.failReads = "refuse";
      expect(await toolError(() => fa.applyPatch(patch, { cwd: dir }))).toEqual({
        code: -32002,
        message: `Permission denied: ${a} (the editor refused: editor: the user said no)`,
      });
      editor.failReads = false;
      expect([editor.get(a), editor.get(b), fs.readFileSync(a, "utf8")]).toEqual(["buffer\n", "buffer\n", "disk\n"]);

      const write = editor.writeTextFile.bind(editor);
      let writes = 0;
      editor.writeTextFile = async (p) => {
        if (++writes === 2) throw Object.assign(new Error("editor: no"), { code: -32603 });
        return write(p);
      };
      const e = await toolError(() => createFileAccess({ editor }).applyPatch(patch, { cwd: dir }));
      expect(e.code).toBe(-32002);
      expect(e.message).toBe(
        `Permission denied: ${b} (the editor refused: editor: no)\nNo file was changed: the 1 already written were put back.`,
      );
      expect([editor.get(a), editor.get(b)]).toEqual(["buffer\n", "buffer\n"]);
      expect(fs.readFileSync(a, "utf8")).toBe("disk\n");

      // The rollback is announced before its writes (an editor may ask about each), and a refused
      // one is named: the model and the user learn which file stayed changed.
      writes = 0;
      const announced: Array<{ files: string[]; reason: string }> = [];
      editor.writeTextFile = async (p) => {
        if (++writes >= 2) throw Object.assign(new Error("editor: no"), { code: -32603 });
        return write(p);
      };
      const onRollback = async (r: { files: string[]; reason: string }): Promise<void> => void announced.push(r);
      const stuck = await toolError(() => createFileAccess({ editor }).applyPatch(patch, { cwd: dir, onRollback }));
      expect(announced).toEqual([{ files: [a], reason: `Permission denied: ${b} (the editor refused: editor: no)` }]);
      expect(stuck.message).toBe(
        `Permission denied: ${b} (the editor refused: editor: no)\nThese files were changed and could not be put back: ${a} (Permission denied: ${a} (the editor refused: editor: no)).`,
      );
      expect(editor.get(a)).toBe("A\n");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("P-TC14b an Add the editor refuses leaves no folder behind: the ones made for it go when nothing else is in them", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "patch-editor-dirs-")));
    try {
      const editor = new FakeEditor();
      editor.writeTextFile = async () => {
        throw Object.assign(new Error("editor: no"), { code: -32603 });
      };
      fs.mkdirSync(path.join(dir, "kept"));
      const added = path.join(dir, "kept", "new", "deeper", "file.txt");
      const e = await toolError(() =>
        createFileAccess({ editor }).applyPatch(P(`*** Add File: ${added}`, "+x"), { cwd: dir }),
      );
      expect(e.code).toBe(-32002);
      expect(fs.readdirSync(dir)).toEqual(["kept"]); // the folder that was there stays
      expect(fs.readdirSync(path.join(dir, "kept"))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
