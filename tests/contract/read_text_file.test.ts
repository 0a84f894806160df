// Every case of contracts/read_text_file.md, against both backends.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileAccess } from "../../src/editor-files/access/index.js";
import { BACKENDS, Env, isRoot, runUnprivileged, sharedTempDir, toolError } from "./helpers.js";

const LINE_BYTES = 64;
const BIG_LINES = 200 * 16384; // 200 MiB of 64-byte lines
const bigLine = (n: number, tag = "x"): string => `${String(n).padStart(10, "0")} ${tag.repeat(52)}\n`;

let bigDir: string;
let bigFile: string;
beforeAll(() => {
  bigDir = fs.mkdtempSync(path.join(os.tmpdir(), "fs-contract-big-"));
  bigFile = path.join(bigDir, "big.txt");
  const fd = fs.openSync(bigFile, "w");
  try {
    let n = 1;
    for (let chunk = 0; chunk < 200; chunk++) {
      const parts: string[] = [];
      for (let i = 0; i < 16384; i++) parts.push(bigLine(n++));
      fs.writeSync(fd, Buffer.from(parts.join(""))); // 1 MiB per write
    }
  } finally {
    fs.closeSync(fd);
  }
});
afterAll(() => fs.rmSync(bigDir, { recursive: true, force: true }));

describe.each(BACKENDS)("read_text_file [%s]", (backend) => {
  let env: Env;
  beforeAll(() => {
    env = new Env(backend);
  });
  afterAll(() => env.cleanup());
  const served = backend;
  /** Client: Env.setFile gives the editor a buffer that differs from the disk. */
  const unsaved = backend === "client" ? { unsaved_changes: true } : {};

  it("R-TC1 whole file", async () => {
    const f = env.setFile("hello.txt", "Hello\nWorld\n");
    const r = await env.fa.read({ path: f });
    expect(r).toEqual({
      content: "Hello\nWorld\n",
      total_lines: 2,
      returned_lines: 2,
      has_more: false,
      servedBy: served,
      ...unsaved,
    });
    expect(r).not.toHaveProperty("next_line");
  });

  it("R-TC2 pagination", async () => {
    const text = Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join("");
    const f = env.setFile("numbers.txt", text);
    const r = await env.fa.read({ path: f, line: 10, limit: 5 });
    expect(r).toEqual({
      content: "10\n11\n12\n13\n14\n",
      total_lines: 100,
      returned_lines: 5,
      has_more: true,
      next_line: 15,
      servedBy: served,
      ...unsaved,
    });
    const last = await env.fa.read({ path: f, line: 96, limit: 5 });
    expect(last).toMatchObject({ content: "96\n97\n98\n99\n100\n", returned_lines: 5, has_more: false });
    expect(last.next_line).toBeUndefined();
  });

  it("R-TC3 not found", async () => {
    const f = env.p("missing.txt");
    expect(await toolError(() => env.fa.read({ path: f }))).toEqual({ code: -32001, message: `File not found: ${f}` });
  });

  it("R-TC4 relative path", async () => {
    expect(await toolError(() => env.fa.read({ path: "relative/path.txt" }))).toEqual({
      code: -32600,
      message: "Path must be absolute: relative/path.txt",
    });
    expect(env.editor?.calls ?? []).not.toContainEqual(expect.objectContaining({ path: "relative/path.txt" }));
  });

  it("R-TC5 binary", async () => {
    const png = Buffer.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    ]);
    const f = env.setFile("image.png", png);
    expect(await toolError(() => env.fa.read({ path: f }))).toEqual({
      code: -32004,
      message: `Cannot read binary file: ${f}`,
    });
  });

  it("R-TC6 empty file", async () => {
    const f = env.setFile("empty.txt", "");
    expect(await env.fa.read({ path: f })).toEqual({
      content: "",
      total_lines: 0,
      returned_lines: 0,
      has_more: false,
      servedBy: served,
      ...unsaved,
    });
  });

  it("R-TC7 CRLF", async () => {
    const f = env.setFile("crlf.txt", "a\r\nb\r\nc\r\n");
    expect(await env.fa.read({ path: f, line: 2, limit: 1 })).toEqual({
      content: "b\r\n",
      total_lines: 3,
      returned_lines: 1,
      has_more: true,
      next_line: 3,
      servedBy: served,
      ...unsaved,
    });
    expect((await env.fa.read({ path: f })).content).toBe("a\r\nb\r\nc\r\n");
  });

  it("R-TC8 no final newline", async () => {
    const f = env.setFile("nofinal.txt", "a\nb\nc");
    expect(await env.fa.read({ path: f })).toMatchObject({
      content: "a\nb\nc",
      total_lines: 3,
      returned_lines: 3,
      has_more: false,
    });
    expect(await env.fa.read({ path: f, line: 3 })).toMatchObject({
      content: "c",
      total_lines: 3,
      returned_lines: 1,
      has_more: false,
    });
    expect(await env.fa.read({ path: f, line: 2, limit: 1 })).toMatchObject({
      content: "b\n",
      returned_lines: 1,
      has_more: true,
      next_line: 3,
    });
  });

  it("R-TC9 line past the end", async () => {
    const f = env.setFile("two.txt", "a\nb\n");
    for (const params of [{ line: 3 }, { line: 50, limit: 5 }]) {
      const r = await env.fa.read({ path: f, ...params });
      expect(r).toEqual({
        content: "",
        total_lines: 2,
        returned_lines: 0,
        has_more: false,
        servedBy: served,
        ...unsaved,
      });
    }
    const e = env.setFile("empty2.txt", "");
    expect(await env.fa.read({ path: e, line: 1 })).toMatchObject({
      content: "",
      total_lines: 0,
      returned_lines: 0,
      has_more: false,
    });
  });

  it("R-TC10 multi-byte UTF-8", async () => {
    const head = "é\n日本語\n🌍 ok\n";
    // A 4-byte character straddling the 1 MiB boundary of the local reader.
    const filler = "a".repeat((1 << 20) - Buffer.byteLength(head) - 2);
    const text = `${head}${filler}🌍tail\nlast é\n`;
    expect(Buffer.byteLength(`${head}${filler}`)).toBe((1 << 20) - 2);
    const f = env.setFile("utf8.txt", text);
    expect(await env.fa.read({ path: f, line: 1, limit: 3 })).toMatchObject({
      content: head,
      total_lines: 5,
      has_more: true,
      next_line: 4,
    });
    expect(await env.fa.read({ path: f, line: 4 })).toMatchObject({
      content: `${filler}🌍tail\nlast é\n`,
      returned_lines: 2,
    });
    expect(await env.fa.read({ path: f, line: 5, limit: 1 })).toMatchObject({ content: "last é\n", has_more: false });
    expect((await env.fa.read({ path: f })).content).toBe(text);
  });

  // (The contract's memory bound for this read, RSS +64 MB at most, is the bench's to measure: in
  // a test process beside others, RSS measures the machine's load as much as the read.)
  it("R-TC11 200 MB file: windowed read", async () => {
    if (env.editor) {
      // The editor shows its own text for the big file and only ever serves windows.
      env.editor.generated.set(bigFile, (n) => (n <= BIG_LINES ? bigLine(n, "b") : undefined));
    }
    const r = await env.fa.read({ path: bigFile, line: 1_000_000, limit: 100 });
    const tag = env.editor ? "b" : "x";
    let expected = "";
    for (let n = 1_000_000; n < 1_000_100; n++) expected += bigLine(n, tag);
    expect(r.content).toBe(expected);
    expect(Buffer.byteLength(r.content)).toBe(100 * LINE_BYTES);
    expect(r).toMatchObject({
      total_lines: BIG_LINES,
      returned_lines: 100,
      has_more: true,
      next_line: 1_000_100,
      servedBy: served,
    });
    // Past LARGE_FILE_BYTES the buffer is not compared with the disk (that would read 200 MB).
    expect(r).not.toHaveProperty("unsaved_changes");
    if (env.editor) {
      const reads = env.editor.calls.filter((c) => c.path === bigFile);
      expect(reads).toEqual([{ op: "read", path: bigFile, line: 1_000_000, limit: 101 }]);
    }
    // The end of the file: exact count, no more.
    const tail = await env.fa.read({ path: bigFile, line: BIG_LINES - 1, limit: 10 });
    expect(tail).toMatchObject({
      total_lines: BIG_LINES,
      returned_lines: 2,
      has_more: false,
      content: bigLine(BIG_LINES - 1, tag) + bigLine(BIG_LINES, tag),
    });
  });

  it("R-TC12 symlink", async () => {
    const target = env.setFile("target.txt", "through the link\n");
    const link = env.p("link.txt");
    fs.symlinkSync(target, link);
    expect(await env.fa.read({ path: link })).toMatchObject({ content: "through the link\n", total_lines: 1 });
    const dangling = env.p("dangling.txt");
    fs.symlinkSync(env.p("nowhere.txt"), dangling);
    expect(await toolError(() => env.fa.read({ path: dangling }))).toEqual({
      code: -32001,
      message: `File not found: ${dangling}`,
    });
  });

  it("R-TC13 FIFO or device does not hang", { timeout: 10_000 }, async () => {
    const fifo = env.p("pipe");
    execFileSync("mkfifo", [fifo]);
    expect(await toolError(() => env.fa.read({ path: fifo }))).toEqual({
      code: -32003,
      message: `${fifo} is not a file`,
    });
    expect(await toolError(() => env.fa.read({ path: "/dev/zero" }))).toEqual({
      code: -32003,
      message: "/dev/zero is not a file",
    });
    expect(await toolError(() => env.fa.read({ path: "/dev/zero", line: 1, limit: 1 }))).toMatchObject({
      code: -32003,
    });
    if (env.editor) expect(env.editor.calls.filter((c) => c.path === fifo || c.path === "/dev/zero")).toEqual([]);
  });

  it("R-TC14 directory", async () => {
    const d = env.p("adir");
    fs.mkdirSync(d);
    expect(await toolError(() => env.fa.read({ path: d }))).toEqual({ code: -32003, message: `${d} is not a file` });
  });

  it("R-TC15 invalid line/limit", async () => {
    const f = env.setFile("v.txt", "x\n");
    expect(await toolError(() => env.fa.read({ path: f, line: 0 }))).toEqual({
      code: -32600,
      message: "Line number must be >= 1: 0",
    });
    expect(await toolError(() => env.fa.read({ path: f, limit: 0 }))).toEqual({
      code: -32600,
      message: "Limit must be >= 1: 0",
    });
    expect(await toolError(() => env.fa.read({ path: f, line: 1.5 }))).toEqual({
      code: -32600,
      message: "Line number must be an integer: 1.5",
    });
    expect(await toolError(() => env.fa.read({ path: f, line: -3 }))).toEqual({
      code: -32600,
      message: "Line number must be >= 1: -3",
    });
  });

  it("R-TC16 permission denied", async (ctx) => {
    const dir = sharedTempDir();
    try {
      const f = path.join(dir, "secret.txt");
      fs.writeFileSync(f, "secret\n", { mode: 0o600 });
      if (!isRoot) fs.chmodSync(f, 0o000);
      const out = runUnprivileged({ backend, op: "read", params: { path: f } });
      if ("skipped" in out) return ctx.skip(out.skipped);
      // Client: the editor refused (it could not read the file either); the disk is not read around it.
      if (env.editor)
        expect(out).toEqual({
          ok: false,
          code: -32002,
          message: `Permission denied: ${f} (the editor refused: editor: permission denied)`,
        });
      else expect(out).toEqual({ ok: false, code: -32002, message: `Permission denied: ${f}` });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("R-TC17 invalid UTF-8 in the window", async () => {
    if (env.editor) {
      const f = env.setFile("latin1.txt", "ok\ncaf\uD800\n");
      expect(await env.fa.read({ path: f, line: 1, limit: 1 })).toMatchObject({ content: "ok\n", total_lines: 2 });
      expect(await toolError(() => env.fa.read({ path: f, line: 2 }))).toEqual({
        code: -32004,
        message: `Cannot read binary file: ${f}`,
      });
      return;
    }
    const f = env.setFile("latin1.txt", Buffer.from("ok\ncaf\xE9\n", "latin1"));
    expect(await env.fa.read({ path: f, line: 1, limit: 1 })).toMatchObject({
      content: "ok\n",
      total_lines: 2,
      has_more: true,
    });
    expect(await toolError(() => env.fa.read({ path: f, line: 2 }))).toEqual({
      code: -32004,
      message: `Cannot read binary file: ${f}`,
    });
  });

  it("R-TC18 the editor's error is final: a refusal is -32002 and the disk is not read; only Method not found falls back", async () => {
    const f = env.p("fallback.txt");
    fs.writeFileSync(f, "DISKTEXT-42\n");
    if (!env.editor) {
      expect(await env.fa.read({ path: f })).toMatchObject({ content: "DISKTEXT-42\n", servedBy: "local" });
      return;
    }
    env.editor.set(f, "EDITORTEXT-42\n");
    try {
      env.editor.failReads = "refuse";
      expect(await toolError(() => env.fa.read({ path: f }))).toEqual({
        code: -32002,
        message: `Permission denied: ${f} (the editor refused: editor: the user said no)`,
      });
      // A refusal for a file that is not there is named as missing, a directory as not a file.
      expect(await toolError(() => env.fa.read({ path: env.p("nowhere.txt") }))).toEqual({
        code: -32001,
        message: `File not found: ${env.p("nowhere.txt")}`,
      });
      expect(env.logs.find((l) => l.path === f)).toMatchObject({
        level: 30,
        code: -32002,
        reason: "editor: the user said no",
      });
      env.editor.failReads = "absent";
      expect(await env.fa.read({ path: f })).toEqual({
        content: "DISKTEXT-42\n",
        total_lines: 1,
        returned_lines: 1,
        has_more: false,
        servedBy: "local",
      });
      expect(JSON.stringify(env.logs)).not.toMatch(/DISKTEXT|EDITORTEXT/);
    } finally {
      env.editor.failReads = false;
    }
  });

  it("R-TC18b an editor answer with no text is said to be one (-32603), not taken for the user's refusal, and the disk is not read", async (ctx) => {
    if (!env.editor) return ctx.skip();
    const f = env.p("malformed.txt");
    fs.writeFileSync(f, "DISKTEXT-43\n");
    const editor = env.editor;
    const read = editor.readTextFile.bind(editor);
    try {
      for (const answer of [{ content: 42 }, {}, null]) {
        editor.readTextFile = async () => answer as never;
        expect(await toolError(() => createFileAccess({ editor }).read({ path: f }))).toEqual({
          code: -32603,
          message: `The editor's answer to fs/read_text_file for ${f} has no text (not {"content": string}); nothing was read`,
        });
      }
    } finally {
      editor.readTextFile = read;
    }
  });

  it("R-TC20 /proc, /sys and /dev are refused, also through a link or ..", async () => {
    for (const p of ["/proc/self/environ", "/proc/self/status", "/sys/kernel/hostname", "/dev/null"]) {
      expect(await toolError(() => env.fa.read({ path: p }))).toEqual({ code: -32003, message: `${p} is not a file` });
    }
    const link = env.p("env-link");
    fs.symlinkSync("/proc/self/environ", link);
    expect(await toolError(() => env.fa.read({ path: link }))).toMatchObject({ code: -32003 });
    expect(await toolError(() => env.fa.read({ path: `${env.dir}/../../proc/self/environ` }))).toMatchObject({
      code: -32003,
    });
    expect(await toolError(() => env.fa.write({ path: "/proc/self/comm", content: "x" }))).toMatchObject({
      code: -32003,
    });
    if (env.editor)
      expect(
        env.editor.calls.filter(
          (c) => c.path.includes("proc") || c.path.includes("/sys/") || c.path.startsWith("/dev"),
        ),
      ).toEqual([]);
  });

  it("R-TC21 a read outside the workspace roots (a link or .. out of it too) says so", async () => {
    const ws = env.p("ws");
    fs.mkdirSync(ws, { recursive: true });
    const inside = path.join(ws, "in.txt");
    const outside = env.p("out.txt");
    for (const f of [inside, outside]) {
      fs.writeFileSync(f, "text\n");
      env.editor?.set(f, "text\n");
    }
    const link = path.join(ws, "link.txt");
    fs.symlinkSync(outside, link);
    const fa = createFileAccess({
      ...(env.editor ? { editor: env.editor } : {}),
      policy: { mode: () => "auto", roots: () => [ws] },
    });
    expect(await fa.read({ path: inside })).not.toHaveProperty("outside_workspace");
    for (const p of [outside, link, path.join(ws, "..", "out.txt")])
      expect(await fa.read({ path: p }), p).toMatchObject({ content: "text\n", outside_workspace: true });
  });

  it("R-TC19 unsaved changes: set when the editor's text differs from the disk, absent when it is the same", async () => {
    const f = env.p("unsaved.txt");
    fs.writeFileSync(f, "same\n");
    if (!env.editor) {
      expect(await env.fa.read({ path: f })).not.toHaveProperty("unsaved_changes");
      return;
    }
    env.editor.set(f, "same\n");
    expect(await env.fa.read({ path: f })).not.toHaveProperty("unsaved_changes");
    env.editor.set(f, "sane\n"); // same size, other text
    expect(await env.fa.read({ path: f })).toMatchObject({ unsaved_changes: true });
    env.editor.set(f, "edited but not saved\n");
    expect(await env.fa.read({ path: f, line: 1, limit: 1 })).toMatchObject({ unsaved_changes: true });
    const fresh = env.p("never-saved.txt");
    env.editor.set(fresh, "new buffer\n");
    expect(await env.fa.read({ path: fresh })).toMatchObject({ content: "new buffer\n", unsaved_changes: true });
  });
});
