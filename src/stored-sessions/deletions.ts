// Sessions deleted whose Codex thread stays on disk. Codex refuses to delete a thread whose history
// a fork still reads (0.169: "forked history still references it"; the fork's rollout starts where
// its source's ends), so session/delete archives it instead and remembers it here, one empty file
// per thread ($CODEX_HOME/codex-cli-acp/deleted-sessions/<thread id>, beside the mode memory): no
// list shows it and no request finds it, while the fork loads its whole history. Every later
// delete asks Codex again to delete these threads, and forgets each it deletes (its last fork was
// deleted): the files last only while something refers to them.
import { readdir, rm, stat, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";

/** Codex's thread ids (UUIDs): anything else could name another place, and is never a file name here. */
const THREAD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export class DeletedThreads {
  constructor(private readonly dir: string) {}

  /** Whether the thread belongs to a deleted session. */
  async has(threadId: string): Promise<boolean> {
    if (!THREAD_ID.test(threadId)) return false;
    return stat(path.join(this.dir, threadId)).then(
      () => true,
      () => false,
    );
  }

  /** Every thread kept for a deleted session. */
  async all(): Promise<Set<string>> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return new Set(names.filter((n) => THREAD_ID.test(n)));
  }

  /** Remembers the thread as deleted; rejects when it cannot (the delete then fails: the session would come back). */
  async add(threadId: string): Promise<void> {
    if (!THREAD_ID.test(threadId)) throw new Error(`not a thread id: ${threadId}`);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFile(path.join(this.dir, threadId), "", { mode: 0o600 });
  }

  /** Codex deleted the thread: nothing of it is left to hide. */
  async remove(threadId: string): Promise<void> {
    if (THREAD_ID.test(threadId)) await rm(path.join(this.dir, threadId), { force: true });
  }
}
