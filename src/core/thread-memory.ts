// A small choice kept per thread beside Codex's threads (its home, so it goes where they go and
// tests stay hermetic), where Codex's own record cannot tell it: one small file per thread, in one
// folder per kind of choice, holding only the choice. The modes feature keeps the mode a thread was
// left in (modes/index.ts: Review Edits and Read Only share Codex's settings); the config options
// keep the Codex profile chosen for it. Best effort: a store that cannot be read or written costs
// the memory (the thread loads as Codex's settings say), never the session.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

type MemoryLog = { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };

/** Codex's thread ids (UUIDs): anything else could name another place, and is never a file name here. */
const THREAD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** What a memory holds: which values it keeps (nothing else is written or read back), and what they are, for its log lines. */
export type MemoryKind = { what: string; value: RegExp; maxBytes: number };

export class ThreadMemory {
  /** Each thread's writes, one after another, so the last change is the one kept. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly log: MemoryLog,
    private readonly kind: MemoryKind,
  ) {}

  /** The value remembered for the thread, if any. */
  async recall(threadId: string): Promise<string | undefined> {
    if (!THREAD_ID.test(threadId)) return undefined;
    await this.writing.get(threadId);
    let text: string;
    try {
      const file = await open(path.join(this.dir, threadId), "r");
      try {
        // More than any value kept: a bigger file is not ours.
        const buffer = Buffer.alloc(this.kind.maxBytes + 1);
        const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
        if (bytesRead > this.kind.maxBytes) return undefined;
        text = buffer.toString("utf8", 0, bytesRead).trim();
      } finally {
        await file.close();
      }
    } catch {
      return undefined; // none kept (the usual case), or unreadable: no memory
    }
    return this.kind.value.test(text) ? text : undefined;
  }

  /** Keeps `value` for the thread, or forgets it (undefined). Resolves once done; never rejects. */
  remember(threadId: string, value: string | undefined): Promise<void> {
    if (
      !THREAD_ID.test(threadId) ||
      (value !== undefined && (!this.kind.value.test(value) || Buffer.byteLength(value) > this.kind.maxBytes - 1))
    )
      return Promise.resolve();
    const previous = this.writing.get(threadId) ?? Promise.resolve();
    const next = previous.then(() => this.store(threadId, value));
    this.writing.set(threadId, next);
    void next.then(() => {
      if (this.writing.get(threadId) === next) this.writing.delete(threadId);
    });
    return next;
  }

  private async store(threadId: string, value: string | undefined): Promise<void> {
    const file = path.join(this.dir, threadId);
    try {
      if (value === undefined) {
        await rm(file, { force: true });
        return;
      }
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      // Whole or not at all: a reader never sees half a name.
      const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        await writeFile(temporary, `${value}\n`, { mode: 0o600 });
        await rename(temporary, file);
      } catch (err) {
        await rm(temporary, { force: true });
        throw err;
      }
      this.log.debug({ threadId, [this.kind.what]: value }, `${this.kind.what} remembered for the thread`);
    } catch (err) {
      this.log.warn(
        { threadId, err: err instanceof Error ? err.message : String(err) },
        `could not keep the thread's ${this.kind.what}; it will load as its settings say`,
      );
    }
  }
}
