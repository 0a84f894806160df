// One `codex app-server` child as a process: spawned (or an already spawned one wrapped), its
// stdout read as lines, the tail of its stderr kept, its output held while the ACP client is
// behind, its exit seen once, and its stop (on Windows its whole process tree). What the lines
// say is the client's (../client.ts); which child is current, the host's (host.ts).
import type { ChildProcess } from "node:child_process";
import type { Logger } from "../../log/index.js";
import { processStopper, type ProcessStopper } from "../../platform/index.js";
import { LineSplitter } from "../../streams/index.js";
import type { ExitInfo } from "../errors.js";
import type { CodexCommand } from "../locate.js";
import { spawnAppServer } from "../spawn.js";

const STDERR_TAIL_LINES = 20;

export type ChildOptions = { args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string; stop?: ProcessStopper };

/** What the child's owner hears: each line it prints on stdout (blank ones aside), and its exit (once, before `exited` resolves). */
export type ChildHandlers = { line(line: string): void; exit(info: ExitInfo): void };

export class CodexChild {
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcess;
  private exitInfo: ExitInfo | undefined;
  private lastOutputAt = Date.now();
  private outputHeld = false;
  /** Why we killed the child ourselves (it stopped answering), for the exit reason. */
  private killReason: string | undefined;
  /** How codex is stopped on this host (on Windows: its whole process tree). */
  private readonly stop: ProcessStopper;
  /** The last lines codex printed on stderr (for a start-up failure's message). */
  private readonly stderrLines: string[] = [];
  private readonly stderrDone: Promise<void>;

  /** Wraps an already spawned app-server child, or spawns one from `command`. */
  constructor(source: CodexCommand | ChildProcess, log: Logger, opts: ChildOptions, handlers: ChildHandlers) {
    this.stop = opts.stop ?? processStopper();
    this.child = "file" in source ? spawnAppServer(source, opts) : source;
    log.debug({ codexPid: this.child.pid }, "codex app-server started");
    // Bytes, not text: the pieces of a long line (a page of history is megabytes) wait off the
    // JS heap until the line is complete, instead of being promoted to its old space.
    const stdoutLines = new LineSplitter((line) => {
      if (line.trim()) handlers.line(line);
    });
    this.child.stdout?.on("data", (chunk: Buffer) => {
      this.lastOutputAt = Date.now();
      stdoutLines.push(chunk);
    });
    this.child.stderr?.setEncoding("utf8");
    const stderrLines = new LineSplitter((line) => {
      const text = line.trim();
      if (!text) return;
      log.debug({ codexStderr: text }, "codex stderr");
      // Kept for a start-up failure's message; backtrace frames say nothing to a user.
      if (!/^\d+: |^Stack backtrace:$/.test(text)) {
        this.stderrLines.push(text.slice(0, 500));
        if (this.stderrLines.length > STDERR_TAIL_LINES) this.stderrLines.shift();
      }
    });
    this.child.stderr?.on("data", (chunk: string) => stderrLines.push(chunk));
    this.stderrDone = new Promise((resolve) => {
      if (!this.child.stderr) resolve();
      else this.child.stderr.once("close", () => resolve());
    });
    // A write after the child died, or a broken pipe either way, must not crash the adapter (a
    // stream error with no listener is thrown); the child's exit is what ends the client.
    this.child.stdin?.on("error", (err) => log.debug({ err: err.message }, "codex stdin error"));
    this.child.stdout?.on("error", (err) => log.warn({ err: err.message }, "codex stdout error"));
    this.child.stderr?.on("error", (err) => log.warn({ err: err.message }, "codex stderr error"));
    this.exited = new Promise<ExitInfo>((resolve) => {
      const finish = (info: ExitInfo) => {
        if (this.exitInfo) return;
        this.exitInfo = info;
        handlers.exit(info);
        resolve(info);
      };
      this.child.once("error", (err) =>
        finish({ code: null, signal: null, reason: `codex could not be started: ${err.message}` }),
      );
      this.child.once("exit", (code, signal) =>
        finish({ code, signal, reason: this.killReason ?? (signal ? `killed by ${signal}` : `exit code ${code}`) }),
      );
      // Already gone before we listened (e.g. a pre-spawned child that failed at once).
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        finish({ code: this.child.exitCode, signal: this.child.signalCode, reason: "exited before start-up" });
      }
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How the child ended, once it has. */
  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** Writes to the child's stdin (what it reads as requests, answers and notifications). */
  write(text: string): void {
    this.child.stdin?.write(text);
  }

  /** What codex printed last on stderr, once its stderr closed (or after `waitMs`). */
  async stderrTail(waitMs = 200): Promise<readonly string[]> {
    await Promise.race([this.stderrDone, new Promise((r) => setTimeout(r, waitMs).unref())]);
    return [...this.stderrLines];
  }

  /** How long codex has printed nothing (0 while its output is held: then it is not being read). */
  get silentForMs(): number {
    return this.outputHeld ? 0 : Date.now() - this.lastOutputAt;
  }

  /**
   * Stops (or resumes) reading codex's output, while the ACP client reads ours too slowly: codex
   * then waits on its own pipe, instead of everything it says piling up here.
   */
  holdOutput(held: boolean): void {
    if (held === this.outputHeld) return;
    this.outputHeld = held;
    if (held) this.child.stdout?.pause();
    else {
      this.lastOutputAt = Date.now();
      this.child.stdout?.resume();
    }
  }

  /** Kills the child; `reason` becomes the exit's reason (what users are told). */
  kill(signal: NodeJS.Signals = "SIGTERM", reason?: string): void {
    if (this.exitInfo) return;
    if (reason) this.killReason = reason;
    this.stop(this.child, signal);
  }

  /** Closes stdin (app-server exits on EOF) and kills it if it lingers. */
  async close(graceMs = 1500): Promise<void> {
    if (this.exitInfo) return;
    this.child.stdin?.end();
    const timer = setTimeout(() => this.kill("SIGKILL"), graceMs);
    timer.unref();
    await this.exited;
    clearTimeout(timer);
  }
}
