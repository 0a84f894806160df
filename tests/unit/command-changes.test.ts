// The pieces behind a command's card (src/editor-files/command-changes): which files a command
// line names, what a file is at one moment, what changed between two, and the bad inputs issue 48
// names: a root that vanishes, a file replaced by a folder, a symlink loop, a 2 GB file, a file that
// is not UTF-8. Each is named, never read whole, never a crash or a hang.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CommandChanges,
  FolderWatch,
  afterCommand,
  commandPaths,
  fileState,
  modelNote,
  reportContent,
} from "../../src/editor-files/command-changes/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cmd-changes-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the paths a command line names", () => {
  const ws = "/ws";
  const paths = (cmd: string) => commandPaths(cmd, ws, [ws]);
  it("reads words as sh splits them: quotes, escapes, redirects, operators", () => {
    expect(paths("sed -i 's/a b/c/' notes.txt")).toEqual(["/ws/s/a b/c", "/ws/notes.txt"]);
    expect(paths('echo hi > "out file.txt" && cat a\\ b.txt | tee -a log.txt')).toEqual([
      "/ws/hi",
      "/ws/out file.txt",
      "/ws/a b.txt",
      "/ws/log.txt",
    ]);
    expect(paths("mv src/a.js ../outside.js; rm -rf /etc/x")).toEqual(["/ws/src/a.js"]);
    expect(paths("cmd 2>&1 >>app.log")).toEqual(["/ws/app.log"]);
    expect(paths("cat <<EOF > gen.txt\nbody\nEOF")).toEqual(["/ws/gen.txt"]);
    expect(paths("sort --output=sorted.txt in.txt")).toEqual(["/ws/sorted.txt", "/ws/in.txt"]);
  });
  it("skips what the shell expands at run time, assignments, and options", () => {
    expect(paths('rm $FILE *.log ~/x `pwd`/y "$HOME/z" a{1,2}')).toEqual([]);
    expect(paths("X=1 env -i touch f")).toEqual(["/ws/touch", "/ws/f"]);
  });
  it("keeps at most 64 paths, each once", () => {
    const many = `touch ${Array.from({ length: 200 }, (_, i) => `f${i % 100}`).join(" ")}`;
    const got = paths(many);
    expect(got).toHaveLength(64);
    expect(new Set(got).size).toBe(64);
  });
});

describe("a file's state, and bad inputs", () => {
  it("a text file, a binary, a file that is not UTF-8, a 2 GB file (sparse: never read), a folder, a symlink loop, nothing", async () => {
    await writeFile(path.join(dir, "t.txt"), "héllo\n");
    await writeFile(path.join(dir, "b.bin"), Buffer.from([1, 0, 2]));
    await writeFile(path.join(dir, "latin1.txt"), Buffer.from([0x68, 0xe9, 0x0a]));
    await writeFile(path.join(dir, "huge"), "");
    await truncate(path.join(dir, "huge"), 2 * 1024 ** 3);
    await mkdir(path.join(dir, "folder"));
    await symlink(path.join(dir, "loop2"), path.join(dir, "loop1"));
    await symlink(path.join(dir, "loop1"), path.join(dir, "loop2"));
    expect(await fileState(path.join(dir, "t.txt"))).toMatchObject({ kind: "file", text: "héllo\n" });
    expect(await fileState(path.join(dir, "b.bin"))).toMatchObject({ kind: "file", why: "binary" });
    expect(await fileState(path.join(dir, "latin1.txt"))).toMatchObject({ kind: "file", why: "binary" });
    expect(await fileState(path.join(dir, "huge"))).toMatchObject({ kind: "file", why: "large", size: 2 * 1024 ** 3 });
    expect(await fileState(path.join(dir, "folder"))).toEqual({ kind: "other", what: "folder" });
    expect(await fileState(path.join(dir, "loop1"))).toEqual({ kind: "other", what: "link" });
    expect(await fileState(path.join(dir, "nothing"))).toEqual({ kind: "absent" });
    expect(await fileState(path.join(dir, "t.txt", "below-a-file"))).toEqual({ kind: "absent" });
  });

  it("a file replaced by a folder, and a root that vanishes during the command: named, no crash", async () => {
    const file = path.join(dir, "x.txt");
    await writeFile(file, "text\n");
    const changes = new CommandChanges({ roots: () => [dir] });
    await changes.before("c1", "do-something x.txt", dir);
    await rm(file);
    await mkdir(file);
    const report = await changes.after("c1")!;
    expect(report.changes).toEqual([{ path: file, op: "replace", what: "now a folder" }]);
    expect(reportContent(report)).toEqual([
      { type: "content", content: { type: "text", text: `Also changed by this command:\n${file}: now a folder` } },
    ]);

    const gone = path.join(dir, "root");
    await mkdir(gone);
    await writeFile(path.join(gone, "y.txt"), "y\n");
    const watch = new FolderWatch(() => [gone]);
    const inGone = new CommandChanges({ roots: () => [gone], watch });
    await inGone.before("c2", "rm -rf y.txt", gone);
    await rm(gone, { recursive: true });
    const r2 = await inGone.after("c2")!;
    expect(r2.changes).toContainEqual(expect.objectContaining({ path: path.join(gone, "y.txt"), op: "delete" }));
    watch.close();
  });

  it("the report: diffs for text, lines for the rest, a cap, and the unsaved warning for the model", async () => {
    const changes = new CommandChanges({
      roots: () => [dir],
      editorText: async (p) => (p.endsWith("held.txt") ? "editor's own text\n" : undefined),
    });
    const names = Array.from({ length: 25 }, (_, i) => `f${i}.txt`);
    await writeFile(path.join(dir, "held.txt"), "disk\n");
    await changes.before("c", `gen held.txt ${names.join(" ")}`, dir);
    await writeFile(path.join(dir, "held.txt"), "new disk\n");
    for (const n of names) await writeFile(path.join(dir, n), `${n}\n`);
    const report = await changes.after("c")!;
    expect(report.unsaved).toEqual([path.join(dir, "held.txt")]);
    const content = reportContent(report);
    expect(content.filter((c) => c.type === "diff")).toHaveLength(20);
    const text = JSON.stringify(content);
    for (const n of names.slice(19)) expect(text).toContain(`${path.join(dir, n)}: created`);
    expect(text).not.toContain("more files");
    expect(text).toContain(`the editor has unsaved changes to ${path.join(dir, "held.txt")}`);
    expect(modelNote(report)).toContain("codex-cli-acp: Warning: the editor has unsaved changes");
    // The same report to both askers (the card and the hook after the command).
    expect(changes.after("c")).toBe(changes.after("c"));
    expect(changes.after("never-looked-at")).toBeUndefined();
  });
});

describe("the hooks' commands", () => {
  it("hand the hook's input to the address and print its answer; without bash or a server they print nothing and end well", async () => {
    const got: string[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        got.push(`${req.method} ${req.url} ${body}`);
        res.writeHead(200, { "Content-Length": 2, Connection: "close" }).end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const input = JSON.stringify({
      hook_event_name: "PostToolUse",
      tool_use_id: "c1",
      tool_response: "héllo 'quoted' \"twice\" 100%s",
    });
    // Not spawnSync: the server answers on this process's loop.
    const run = (command: string, env: NodeJS.ProcessEnv = process.env) =>
      new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const child = spawn("/bin/sh", ["-c", command], { env });
        let stdout = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
        child.on("close", (status) => resolve({ status, stdout }));
        child.stdin.end(input);
      });
    const address = { port, path: "/hook/abc" };
    expect(await run(afterCommand(address))).toEqual({ status: 0, stdout: "ok" });
    expect(got).toEqual([`POST /hook/abc ${input}`]);
    // No bash on PATH, or nobody listening: nothing printed, and the hook ends well.
    expect(await run(afterCommand(address), { PATH: "/nonexistent" })).toEqual({ status: 0, stdout: "" });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await run(afterCommand(address))).toEqual({ status: 0, stdout: "" });
  });
});
