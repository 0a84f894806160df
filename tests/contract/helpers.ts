// Shared harness for the file-tool contract tests: the two backends, an in-memory editor whose
// buffers differ from the disk, and a runner that repeats an operation as an unprivileged user.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import {
  createFileAccess,
  FileToolError,
  type EditorFiles,
  type FileAccess,
} from "../../src/editor-files/access/index.js";

export type BackendName = "local" | "client";
export const BACKENDS: readonly BackendName[] = ["local", "client"];

/** ACP fs/read_text_file semantics, written independently of src/editor-files/access: lines keep their endings. */
export function acpLines(text: string, line?: number, limit?: number): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const start = (line ?? 1) - 1;
  return lines.slice(start, limit === undefined ? undefined : start + limit).join("");
}

type Call = { op: "read" | "write"; path: string; line?: number | undefined; limit?: number | undefined };

/** An editor holding buffers in memory. Keys are the real paths (an editor opens a link's target). */
export class FakeEditor implements EditorFiles {
  readonly buffers = new Map<string, string>();
  readonly calls: Call[] = [];
  /** Make fs/read_text_file (or write) fail: "refuse" as a user's no does, "absent" as a client without the method (-32601). */
  failReads: false | "refuse" | "absent" = false;
  failWrites: false | "refuse" | "absent" = false;
  /** Serves windowed reads of huge files without holding them (path -> line generator). */
  readonly generated = new Map<string, (n: number) => string | undefined>();

  key(p: string): string {
    try {
      return fs.realpathSync(p);
    } catch {
      try {
        return path.resolve(path.dirname(p), fs.readlinkSync(p));
      } catch {
        return p;
      }
    }
  }
  set(p: string, text: string): void {
    this.buffers.set(this.key(p), text);
  }
  get(p: string): string | undefined {
    return this.buffers.get(this.key(p));
  }
  async readTextFile(p: { path: string; line?: number; limit?: number }): Promise<{ content: string }> {
    this.calls.push({ op: "read", path: p.path, line: p.line, limit: p.limit });
    if (this.failReads) throw editorFailure(this.failReads, "editor: the user said no");
    const gen = this.generated.get(this.key(p.path));
    if (gen) {
      if (p.line === undefined || p.limit === undefined) throw new Error("refusing to load a huge file whole");
      let out = "";
      for (let n = p.line; n < p.line + p.limit; n++) out += gen(n) ?? "";
      return { content: out };
    }
    const text = this.get(p.path);
    if (text === undefined) throw new Error(`editor: cannot open ${p.path}`);
    return { content: acpLines(text, p.line, p.limit) };
  }
  async writeTextFile(p: { path: string; content: string }): Promise<void> {
    this.calls.push({ op: "write", path: p.path });
    if (this.failWrites) throw editorFailure(this.failWrites, "editor: write refused");
    this.set(p.path, p.content);
  }
}

/** A JSON-RPC error as the ACP SDK raises it: a refusal, or "Method not found". */
function editorFailure(kind: "refuse" | "absent", message: string): Error & { code: number } {
  return Object.assign(new Error(kind === "absent" ? "Method not found" : message), {
    code: kind === "absent" ? -32601 : -32603,
  });
}

/** One backend under test on its own temp dir. */
export class Env {
  readonly dir: string;
  readonly editor: FakeEditor | undefined;
  readonly fa: FileAccess;
  /** Log records written by the file layer (captured, not printed). */
  readonly logs: Array<Record<string, unknown>> = [];
  constructor(readonly backend: BackendName) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `fs-contract-${backend}-`));
    this.editor = backend === "client" ? new FakeEditor() : undefined;
    const sink = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        this.logs.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = pino({ level: "info" }, sink);
    this.fa = this.editor ? createFileAccess({ editor: this.editor, logger }) : createFileAccess({ logger });
  }
  p(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }
  /** The file's text as the backend sees it. Client: the buffer holds `text`, the disk something else. */
  setFile(rel: string, text: string | Buffer): string {
    const file = this.p(rel);
    if (this.editor) {
      fs.writeFileSync(file, `DISK VERSION of ${rel}\nnot what the editor shows\n`);
      this.editor.set(file, typeof text === "string" ? text : text.toString("latin1"));
    } else {
      fs.writeFileSync(file, text);
    }
    return file;
  }
  /** Text as the backend stores it (client: the editor's buffer). */
  stored(file: string): string | undefined {
    if (this.editor) return this.editor.get(file);
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
  }
  cleanup(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs `fn` and returns the FileToolError it throws (fails the test if it resolves). */
export async function toolError(fn: () => Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof FileToolError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error("expected a FileToolError");
}

export function disk(file: string): Buffer | undefined {
  return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
export const NOBODY = 65534;
export const isRoot = process.getuid?.() === 0;

/**
 * Runs one FileAccess call in a child process as an unprivileged user (uid 65534), so permission
 * errors are real even when the suite runs as root. Returns the error or the result.
 */
export function runUnprivileged(job: {
  backend: BackendName;
  op: "read" | "write";
  params: unknown;
}): { ok: true; result: unknown } | { ok: false; code: number; message: string } | { skipped: string } {
  const script = path.join(here, "unprivileged-child.ts");
  const tsx = path.join(repo, "node_modules/tsx/dist/cli.mjs");
  const opts = isRoot ? { uid: NOBODY, gid: NOBODY } : {};
  const r = spawnSync(process.execPath, [tsx, script, JSON.stringify(job)], {
    ...opts,
    cwd: repo,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CODEX_ACP_LOG_LEVEL: "silent" },
    timeout: 30_000,
  });
  if (r.error) return { skipped: `cannot run a child as uid ${NOBODY}: ${r.error.message}` };
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as { ok: true; result: unknown } | { ok: false; code: number; message: string };
  } catch {
    return { skipped: `child failed (status ${r.status}): ${r.stderr.slice(0, 400)}` };
  }
}

/** A world-traversable temp dir (the unprivileged child must reach into it). */
export function sharedTempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "fs-contract-shared-"));
  fs.chmodSync(d, 0o755);
  return d;
}
