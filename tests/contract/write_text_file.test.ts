// Every case of contracts/write_text_file.md, against both backends. Client backend: writes must
// land in the editor's buffer while the disk stays untouched.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileAccess, type EditorFiles, type SessionMode } from "../../src/editor-files/access/index.js";
import { BACKENDS, disk, Env, FakeEditor, isRoot, runUnprivileged, sharedTempDir, toolError } from "./helpers.js";

describe.each(BACKENDS)("write_text_file [%s]", (backend) => {
  let env: Env;
  beforeAll(() => {
    env = new Env(backend);
  });
  afterAll(() => env.cleanup());
  const served = backend;

  /** Disk bytes of every file in the temp dir (client: must not change). */
  function snapshot(): Map<string, string> {
    const m = new Map<string, string>();
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const full = path.join(d, e.name);
        if (e.isDirectory()) walk(full);
        else if (e.isFile()) m.set(full, fs.readFileSync(full, "latin1"));
        else m.set(full, e.isSymbolicLink() ? `link->${fs.readlinkSync(full)}` : "special");
      }
    };
    walk(env.dir);
    return m;
  }
  async function untouched<T>(fn: () => Promise<T>): Promise<T> {
    if (!env.editor) return fn();
    const before = snapshot();
    const r = await fn();
    expect(snapshot()).toEqual(before);
    return r;
  }

  it("W-TC1 create", async () => {
    const f = env.p("new.txt");
    const r = await untouched(() => env.fa.write({ path: f, content: "Hello\n" }));
    expect(r).toEqual({ success: true, bytes_written: 6, created: true, servedBy: served, oldText: null });
    expect(env.stored(f)).toBe("Hello\n");
    if (env.editor) expect(disk(f)).toBeUndefined();
  });

  it("W-TC2 overwrite", async () => {
    const f = env.setFile("existing.txt", "Old content\n");
    const r = await untouched(() => env.fa.write({ path: f, content: "New content\n" }));
    expect(r).toEqual({ success: true, bytes_written: 12, created: false, servedBy: served, oldText: "Old content\n" });
    expect(env.stored(f)).toBe("New content\n");
  });

  it("W-TC3 empty file", async () => {
    const f = env.p("empty.txt");
    const r = await untouched(() => env.fa.write({ path: f, content: "" }));
    expect(r).toMatchObject({ success: true, bytes_written: 0, created: true });
    expect(env.stored(f)).toBe("");
  });

  it("W-TC4 permission denied", async (ctx) => {
    const dir = sharedTempDir();
    try {
      const locked = path.join(dir, "locked");
      fs.mkdirSync(locked, { mode: 0o700 });
      if (!isRoot) fs.chmodSync(locked, 0o500);
      const f = path.join(locked, "secret.txt");
      const out = runUnprivileged({ backend, op: "write", params: { path: f, content: "data" } });
      if ("skipped" in out) return ctx.skip(out.skipped);
      expect(out).toEqual({ ok: false, code: -32002, message: `Permission denied: ${f}` });
      expect(fs.readdirSync(locked)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("W-TC5 relative path", async () => {
    expect(await toolError(() => env.fa.write({ path: "relative/path.txt", content: "data" }))).toEqual({
      code: -32600,
      message: "Path must be absolute: relative/path.txt",
    });
  });

  it("W-TC6 parent missing", async () => {
    const f = env.p("missing-dir", "file.txt");
    expect(await toolError(() => untouched(() => env.fa.write({ path: f, content: "data" })))).toEqual({
      code: -32001,
      message: `Parent directory not found: ${env.p("missing-dir")}`,
    });
    if (env.editor) expect(env.editor.get(f)).toBeUndefined();
  });

  it("W-TC6b a link whose target's folder is missing names that folder, and where the link is", async () => {
    const link = env.p("link-to-gone.txt");
    const target = env.p("gone-dir", "target.txt");
    fs.symlinkSync(target, link);
    expect(await toolError(() => untouched(() => env.fa.write({ path: link, content: "data" })))).toEqual({
      code: -32001,
      message: `Parent directory not found: ${env.p("gone-dir")} (where ${link} leads)`,
    });
  });

  it("W-TC7 directory", async () => {
    const d = env.p("dir");
    fs.mkdirSync(d);
    expect(await toolError(() => env.fa.write({ path: d, content: "data" }))).toEqual({
      code: -32003,
      message: `${d} is a directory`,
    });
    expect(fs.statSync(d).isDirectory()).toBe(true);
  });

  it("W-TC8 1 MB", async () => {
    const f = env.p("large.txt");
    const content = "0123456789abcdef".repeat(65536);
    const r = await untouched(() => env.fa.write({ path: f, content }));
    expect(r).toMatchObject({ success: true, bytes_written: 1048576, created: true });
    expect(env.stored(f)).toBe(content);
  });

  it("W-TC9 symlink", async () => {
    const target = env.setFile("target.txt", "target before\n");
    const link = env.p("link.txt");
    fs.symlinkSync("target.txt", link);
    const r = await untouched(() => env.fa.write({ path: link, content: "via link\n" }));
    expect(r).toMatchObject({ created: false, oldText: "target before\n" });
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(env.stored(target)).toBe("via link\n");
    // A dangling link: its target is created, the link stays a link.
    const dangling = env.p("dangling.txt");
    fs.symlinkSync("created-by-link.txt", dangling);
    const r2 = await untouched(() => env.fa.write({ path: dangling, content: "new target\n" }));
    expect(r2).toMatchObject({ created: true, oldText: null });
    expect(fs.lstatSync(dangling).isSymbolicLink()).toBe(true);
    if (env.editor) expect(env.editor.get(dangling)).toBe("new target\n");
    else expect(fs.readFileSync(env.p("created-by-link.txt"), "utf8")).toBe("new target\n");
  });

  it("W-TC10 concurrent writes", async () => {
    const f = env.setFile("race.txt", "start\n");
    const contents = Array.from({ length: 16 }, (_, i) => String.fromCharCode(65 + i).repeat(256 * 1024));
    const results = await untouched(() => Promise.all(contents.map((content) => env.fa.write({ path: f, content }))));
    for (const r of results) expect(r).toMatchObject({ success: true, bytes_written: 256 * 1024, created: false });
    const final = env.stored(f);
    expect(contents).toContain(final);
    expect(fs.readdirSync(env.dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("W-TC11 mode kept", async () => {
    const f = env.setFile("mode.txt", "x\n");
    fs.chmodSync(f, 0o640);
    await untouched(() => env.fa.write({ path: f, content: "y\n" }));
    expect(fs.statSync(f).mode & 0o7777).toBe(0o640);
    expect(env.stored(f)).toBe("y\n");
  });

  it("W-TC12 FIFO or device does not hang", { timeout: 10_000 }, async () => {
    const fifo = env.p("wpipe");
    execFileSync("mkfifo", [fifo]);
    expect(await toolError(() => env.fa.write({ path: fifo, content: "x" }))).toEqual({
      code: -32003,
      message: `${fifo} is not a file`,
    });
    expect(await toolError(() => env.fa.write({ path: "/dev/null", content: "x" }))).toEqual({
      code: -32003,
      message: "/dev/null is not a file",
    });
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
  });

  it("W-TC13 multi-byte UTF-8", async () => {
    const f = env.p("utf8.txt");
    const content = "héllo 日本 🌍\n";
    expect(await untouched(() => env.fa.write({ path: f, content }))).toMatchObject({
      bytes_written: 19,
      created: true,
    });
    expect(env.stored(f)).toBe(content);
    if (!env.editor) expect(fs.readFileSync(f)).toEqual(Buffer.from(content, "utf8"));
  });

  it("W-TC14 CRLF, no final newline", async () => {
    const f = env.p("crlf.txt");
    expect(await untouched(() => env.fa.write({ path: f, content: "a\r\nb" }))).toMatchObject({ bytes_written: 4 });
    expect(env.stored(f)).toBe("a\r\nb");
    if (!env.editor) expect(fs.readFileSync(f)).toEqual(Buffer.from("a\r\nb"));
  });

  it("W-TC15 policy", async () => {
    const root = env.p("ws");
    fs.mkdirSync(root, { recursive: true });
    const outsideDir = fs.mkdtempSync(path.join(os.tmpdir(), "fs-contract-outside-"));
    try {
      fs.symlinkSync(outsideDir, path.join(root, "escape"));
      let mode: SessionMode = "read-only";
      const asked: string[] = [];
      let approve = false;
      const fa = createFileAccess({
        ...(env.editor ? { editor: env.editor } : {}),
        policy: {
          mode: () => mode,
          roots: () => [root],
          ask: async ({ changes }) => {
            asked.push(...changes.map((c) => c.path));
            return approve;
          },
        },
      });
      const inside = path.join(root, "in.txt");
      expect(await toolError(() => fa.write({ path: inside, content: "x" }))).toEqual({
        code: -32002,
        message: `Permission denied: ${inside} (session mode is read-only)`,
      });
      expect(env.stored(inside)).toBeUndefined();

      mode = "auto";
      expect(await fa.write({ path: inside, content: "x" })).toMatchObject({ success: true, created: true });
      expect(asked).toEqual([]);
      for (const escaping of [
        path.join(root, "..", "up.txt"),
        path.join(root, "escape", "out.txt"),
        path.join(outsideDir, "o.txt"),
      ]) {
        expect(await toolError(() => fa.write({ path: escaping, content: "x" }))).toEqual({
          code: -32002,
          message: `Permission denied: ${escaping} (outside the workspace; not approved)`,
        });
        expect(env.stored(escaping)).toBeUndefined();
      }
      expect(asked).toHaveLength(3);
      approve = true;
      const out = path.join(outsideDir, "approved.txt");
      expect(await fa.write({ path: out, content: "ok" })).toMatchObject({ success: true });
      expect(env.stored(out)).toBe("ok");

      mode = "full-access";
      const out2 = path.join(outsideDir, "full.txt");
      expect(await fa.write({ path: out2, content: "ok" })).toMatchObject({ success: true });
      expect(asked).toHaveLength(4);
    } finally {
      fs.rmSync(outsideDir, { recursive: true, force: true });
    }
  });

  // W-TC16 (ENOSPC, EROFS) needs injected errno values: tests/unit/fs-errors.test.ts.

  it("W-TC17 missing content", async () => {
    const f = env.p("nocontent.txt");
    expect(await toolError(() => env.fa.write({ path: f } as never))).toEqual({
      code: -32600,
      message: "Invalid params: content must be a string",
    });
  });

  it("W-TC18 the editor's error is final: a refusal is -32002 and the disk is not written; only Method not found falls back", async () => {
    const f = env.p("fallback.txt");
    fs.writeFileSync(f, "DISKTEXT-old\n");
    if (!env.editor) {
      expect(await env.fa.write({ path: f, content: "NEWTEXT\n" })).toMatchObject({ servedBy: "local" });
      expect(fs.readFileSync(f, "utf8")).toBe("NEWTEXT\n");
      return;
    }
    env.editor.set(f, "EDITORTEXT-old\n");
    try {
      env.editor.failWrites = "refuse";
      expect(await toolError(() => env.fa.write({ path: f, content: "NEWTEXT\n" }))).toEqual({
        code: -32002,
        message: `Permission denied: ${f} (the editor refused: editor: write refused)`,
      });
      expect(fs.readFileSync(f, "utf8")).toBe("DISKTEXT-old\n");
      expect(await toolError(() => env.fa.write({ path: env.p("no-such-dir", "x.txt"), content: "x" }))).toMatchObject({
        code: -32001,
      });
      expect(env.logs.find((l) => l.path === f)).toMatchObject({
        level: 30,
        code: -32002,
        reason: "editor: write refused",
      });
      // A refused read only costs the diff its previous text; the write itself goes to the editor.
      env.editor.failWrites = false;
      env.editor.failReads = "refuse";
      expect(await env.fa.write({ path: f, content: "NEWTEXT\n" })).toMatchObject({
        servedBy: "client",
        oldText: undefined,
      });
      env.editor.failReads = false;
      env.editor.failWrites = "absent";
      const r = await env.fa.write({ path: f, content: "NEWTEXT\n" });
      expect(r).toMatchObject({ success: true, created: false, servedBy: "local", bytes_written: 8 });
      expect(fs.readFileSync(f, "utf8")).toBe("NEWTEXT\n");
      expect(JSON.stringify(env.logs)).not.toMatch(/DISKTEXT|EDITORTEXT|NEWTEXT/);
    } finally {
      env.editor.failWrites = false;
      env.editor.failReads = false;
    }
  });
});

describe("write_text_file [client] specifics", () => {
  it("the editor's reason in the error's data.details reaches the model, not the generic message", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "write-reason-"));
    try {
      const f = path.join(dir, "a.txt");
      const refusing = (data: unknown): EditorFiles => ({
        writeTextFile: () => Promise.reject(Object.assign(new Error("Internal error"), { code: -32603, data })),
      });
      // acpx answers a user's "no" as Internal error with the reason in data.details.
      expect(
        await toolError(() =>
          createFileAccess({ editor: refusing({ details: "Permission denied by the user" }) }).write({
            path: f,
            content: "x",
          }),
        ),
      ).toEqual({
        code: -32002,
        message: `Permission denied: ${f} (the editor refused: Permission denied by the user)`,
      });
      expect(
        (
          await toolError(() =>
            createFileAccess({ editor: refusing("a plain string reason") }).write({ path: f, content: "x" }),
          )
        ).message,
      ).toContain("(the editor refused: a plain string reason)");
      expect(
        (await toolError(() => createFileAccess({ editor: refusing({ other: 1 }) }).write({ path: f, content: "x" })))
          .message,
      ).toContain("(the editor refused: Internal error)");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("W-TC2 previous text comes from the editor's buffer when it can read", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fs-contract-old-"));
    try {
      const f = path.join(dir, "a.txt");
      fs.writeFileSync(f, "disk\n");
      const editor = new FakeEditor();
      editor.set(f, "buffer\n");
      const writeOnly = { writeTextFile: editor.writeTextFile.bind(editor) };
      expect(await createFileAccess({ editor }).write({ path: f, content: "n\n" })).toMatchObject({
        oldText: "buffer\n",
        servedBy: "client",
      });
      // No read capability: the previous text is read from disk, the write still goes to the editor.
      expect(await createFileAccess({ editor: writeOnly }).write({ path: f, content: "m\n" })).toMatchObject({
        oldText: "disk\n",
        servedBy: "client",
      });
      expect(fs.readFileSync(f, "utf8")).toBe("disk\n");
      // Created files are not read at all.
      const before = editor.calls.length;
      await createFileAccess({ editor }).write({ path: path.join(dir, "b.txt"), content: "" });
      expect(editor.calls.slice(before).map((c) => c.op)).toEqual(["write"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
