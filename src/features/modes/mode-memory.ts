// Which mode a stored thread was left in, where Codex's own record cannot tell: Review Edits runs
// Codex with Read Only's approval policy and sandbox (the two differ only in what the file tools
// do with a write), so a loaded thread's settings match both; and codex 0.169 resumes a thread in a
// folder it does not trust with the configuration's sandbox (read-only there), so Auto came back
// as Read Only. The user's choice is kept beside Codex's threads (its home, so it goes where they
// go and tests stay hermetic), one small file per thread, only while the thread is in such a mode
// (the modes feature decides which). Best effort: a store that cannot be read or written costs the
// memory (the thread loads as its settings say), never the session.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

type MemoryLog = { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };

/** Codex's thread ids (UUIDs): anything else could name another place, and is never a file name here. */
const THREAD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** A mode id as this agent names them; the file holds nothing else. */
const MODE_ID = /^[a-z][a-z-]{0,39}$/;
/** More than any mode id: a bigger file is not ours. */
const MAX_READ = 64;

export class ModeMemory {
  /** Each thread's writes, one after another, so the last change is the one kept. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly log: MemoryLog,
  ) {}

  /** The mode remembered for the thread, if any. */
  async recall(threadId: string): Promise<string | undefined> {
    if (!THREAD_ID.test(threadId)) return undefined;
    await this.writing.get(threadId);
    let text: string;
    try {
      const file = await open(path.join(this.dir, threadId), "r");
      try {
        const buffer = Buffer.alloc(MAX_READ + 1);
        const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
        if (bytesRead > MAX_READ) return undefined;
        text = buffer.toString("utf8", 0, bytesRead).trim();
      } finally {
        await file.close();
      }
    } catch {
      return undefined; // none kept (the usual case), or unreadable: no memory
    }
    return MODE_ID.test(text) ? text : undefined;
  }

  /** Keeps `mode` for the thread, or forgets it (undefined). Resolves once done; never rejects. */
  remember(threadId: string, mode: string | undefined): Promise<void> {
    if (!THREAD_ID.test(threadId) || (mode !== undefined && !MODE_ID.test(mode))) return Promise.resolve();
    const previous = this.writing.get(threadId) ?? Promise.resolve();
    const next = previous.then(() => this.store(threadId, mode));
    this.writing.set(threadId, next);
    void next.then(() => {
      if (this.writing.get(threadId) === next) this.writing.delete(threadId);
    });
    return next;
  }

  private async store(threadId: string, mode: string | undefined): Promise<void> {
    const file = path.join(this.dir, threadId);
    try {
      if (mode === undefined) {
        await rm(file, { force: true });
        return;
      }
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      // Whole or not at all: a reader never sees half a name.
      const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        await writeFile(temporary, `${mode}\n`, { mode: 0o600 });
        await rename(temporary, file);
      } catch (err) {
        await rm(temporary, { force: true });
        throw err;
      }
      this.log.debug({ threadId, mode }, "mode remembered for the thread");
    } catch (err) {
      this.log.warn({ threadId, err: err instanceof Error ? err.message : String(err) }, "could not keep the thread's mode; it will load as its settings say");
    }
  }
}
