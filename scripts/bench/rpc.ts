// A minimal newline-delimited JSON-RPC peer over a child's stdio, used to drive both
// plain `codex app-server` and the adapter with the same (negligible) client overhead.
import { spawn, type ChildProcess } from "node:child_process";

/** What Zed advertises, which the bench's client advertises too: the editor's buffers for reads and writes, terminal cards. */
export const ZED_CAPS = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  _meta: { terminal_output: true },
};

type Msg = Record<string, unknown> & { id?: number | string; method?: string; params?: any; result?: any; error?: any };

export class LinePeer {
  readonly child: ChildProcess;
  private buf = "";
  private nextId = 1;
  private readonly waiting = new Map<number | string, (m: Msg) => void>();
  private readonly watchers = new Set<(m: Msg) => void>();
  readonly jsonrpc: boolean;

  /** `cwd`: where the process starts (an editor starts its agent in the project's root); else here. */
  constructor(file: string, args: string[], env: NodeJS.ProcessEnv, opts: { jsonrpc: boolean; cwd?: string }) {
    this.jsonrpc = opts.jsonrpc;
    this.child = spawn(file, args, { env, stdio: ["pipe", "pipe", "ignore"], ...(opts.cwd ? { cwd: opts.cwd } : {}) });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => {
      // Newlines are looked for in the new chunk only: a page of history can be a 10 MB line.
      let start = 0;
      let nl: number;
      while ((nl = chunk.indexOf("\n", start)) >= 0) {
        const line = this.buf + chunk.slice(start, nl);
        this.buf = "";
        start = nl + 1;
        if (line.trim()) this.receive(JSON.parse(line) as Msg);
      }
      this.buf += chunk.slice(start);
    });
  }

  private receive(msg: Msg): void {
    for (const w of this.watchers) w(msg);
    if (msg.method && msg.id !== undefined) this.answerServerRequest(msg);
    else if (msg.id !== undefined && !msg.method) {
      const done = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      done?.(msg);
    }
  }

  request(method: string, params: unknown): Promise<Msg> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  /** Writes one line as it is (hostile input). */
  writeRaw(line: string): void {
    this.child.stdin!.write(line.endsWith("\n") ? line : `${line}\n`);
  }

  /** writeRaw, resolving once the pipe takes more (megabytes of lines written at once fail with ENOBUFS otherwise). */
  async writeRawDrained(line: string): Promise<void> {
    const stdin = this.child.stdin!;
    if (!stdin.write(line.endsWith("\n") ? line : `${line}\n`))
      await new Promise((resolve) => stdin.once("drain", resolve));
  }

  /** Calls `fn` for every incoming message until the returned function is called. */
  watch(fn: (m: Msg) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once("exit", () => resolve());
    });
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(t);
  }

  private send(msg: Record<string, unknown>): void {
    this.child.stdin!.write(`${JSON.stringify(this.jsonrpc ? { jsonrpc: "2.0", ...msg } : msg)}\n`);
  }

  private answerServerRequest(msg: Msg): void {
    // The bench never expects approvals; answer anything with an empty result.
    this.send({ id: msg.id, result: {} });
  }
}
