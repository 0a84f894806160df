// CRLF files (the norm on Windows, common anywhere) through an editor that keeps buffers with "\n"
// and saves them with the file's own line ending, as Zed does: reading a saved file is not
// "unsaved changes", and an edit of ours that the editor stored with its own line endings is not
// "the user changed your edit". A change of text is still both.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileAccess, type EditorFiles } from "../../src/editor-files/access/index.js";

/** Zed's way: "\r\n" becomes "\n" in the buffer; a save writes the file's line ending back. */
class NormalisingEditor implements EditorFiles {
  readonly buffers = new Map<string, string>();
  open(p: string): string {
    let text = this.buffers.get(p);
    if (text === undefined) {
      text = fs.readFileSync(p, "utf8").replace(/\r\n/g, "\n");
      this.buffers.set(p, text);
    }
    return text;
  }
  async readTextFile(p: { path: string }): Promise<{ content: string }> {
    return { content: this.open(p.path) };
  }
  async writeTextFile(p: { path: string; content: string }): Promise<void> {
    const crlf = fs.existsSync(p.path) && fs.readFileSync(p.path, "utf8").includes("\r\n");
    const text = p.content.replace(/\r\n/g, "\n");
    this.buffers.set(p.path, text);
    fs.writeFileSync(p.path, crlf ? text.replace(/\n/g, "\r\n") : text);
  }
}

let dir: string;
let editor: NormalisingEditor;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "fs-crlf-")));
  editor = new NormalisingEditor();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("a CRLF file through an editor with \\n buffers", () => {
  it("a saved file reads without unsaved_changes; an edited buffer still says so", async () => {
    const fa = createFileAccess({ editor });
    const f = path.join(dir, "win.txt");
    fs.writeFileSync(f, "one\r\ntwo\r\n");
    const r = await fa.read({ path: f });
    expect(r).toMatchObject({ content: "one\ntwo\n", total_lines: 2 });
    expect(r).not.toHaveProperty("unsaved_changes");
    editor.buffers.set(f, "one\ntwo\nthree\n");
    expect(await fa.read({ path: f })).toMatchObject({ unsaved_changes: true });
    editor.buffers.set(f, "one\ntwO\n"); // same length once the disk's \r are left out
    expect(await fa.read({ path: f })).toMatchObject({ unsaved_changes: true });
  });

  it("our write with \\r\\n, stored by the editor with \\n: no drift reported; a user's change still is", async () => {
    const fa = createFileAccess({ editor });
    const f = path.join(dir, "w.txt");
    fs.writeFileSync(f, "old\r\n");
    await fa.write({ path: f, content: "new\r\ncontent\r\n" });
    expect(fs.readFileSync(f, "utf8")).toBe("new\r\ncontent\r\n");
    const r = await fa.read({ path: f });
    expect(r).not.toHaveProperty("edit_undone");
    expect(r).not.toHaveProperty("unsaved_changes");

    await fa.write({ path: f, content: "mine\r\n" });
    expect(await fa.takeDrift()).toEqual([]);

    await fa.write({ path: f, content: "again\r\n" });
    editor.buffers.set(f, "the user's own\n");
    expect(await fa.takeDrift()).toEqual([{ path: f, state: "changed" }]);
  });

  it("a patch of a CRLF file applies to the editor's text and leaves no drift", async () => {
    const fa = createFileAccess({ editor });
    const f = path.join(dir, "p.txt");
    fs.writeFileSync(f, "a\r\nb\r\nc\r\n");
    await fa.applyPatch(
      { input: "*** Begin Patch\n*** Update File: p.txt\n@@\n a\n-b\n+B\n c\n*** End Patch" },
      { cwd: dir },
    );
    expect(fs.readFileSync(f, "utf8")).toBe("a\r\nB\r\nc\r\n");
    expect(await fa.takeDrift()).toEqual([]);
  });
});

describe("a CRLF file without an editor (node:fs)", () => {
  it("reads its lines as they are, and a patch keeps its line endings", async () => {
    const fa = createFileAccess();
    const f = path.join(dir, "disk.txt");
    fs.writeFileSync(f, "a\r\nb\r\n");
    expect(await fa.read({ path: f })).toMatchObject({ content: "a\r\nb\r\n", total_lines: 2 });
    await fa.applyPatch(
      { input: "*** Begin Patch\n*** Update File: disk.txt\n@@\n-a\n+A\n b\n*** End Patch" },
      { cwd: dir },
    );
    expect(fs.readFileSync(f, "utf8")).toBe("A\r\nb\r\n");
  });
});
