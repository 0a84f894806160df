// The files a command changes without naming them (a script's write, `python3 gen.py`, `git
// apply`): the session's writable roots are watched, one inotify watch per folder (fs.watch, not
// recursive, so what is ignored is never walked), started at the first command and kept. While a
// command runs, every path an event names is kept with whether the folder listed it before: a
// file created is then shown whole, one changed or deleted is named (its earlier text was never
// read: reading every file beforehand is what this avoids). Folders that hold dependencies,
// history or build output (.git, node_modules, the root .gitignore's plain folder names) are not
// watched; past MAX_FOLDERS folders the rest are not either, and the card says nothing of them.
import { watch, type FSWatcher } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";

/** Folders watched at most per session (each is one inotify watch). */
export const MAX_FOLDERS = 4096;
/** Names known at most (what each watched folder lists): bounds the memory of a huge workspace. */
const MAX_NAMES = 200_000;
/** Paths one command's window keeps at most; past it they are counted. */
const MAX_SEEN = 1000;
/** Folders never watched, anywhere in the tree. */
const NEVER: ReadonlySet<string> = new Set([
  ".git",
  "node_modules",
  ".hg",
  ".svn",
  "__pycache__",
  ".venv",
  ".tox",
  ".cache",
  ".next",
  ".turbo",
]);

export type Seen = { path: string; existedBefore: boolean };
export type WindowReport = { seen: Seen[]; more: number };

type Window = { seen: Map<string, boolean>; more: number };

export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Names each watched folder lists now. */
  private readonly names = new Map<string, Set<string>>();
  private nameCount = 0;
  private readonly windows = new Set<Window>();
  private started: Promise<void> | undefined;
  private closed = false;
  private ignored: ReadonlySet<string> = NEVER;

  constructor(private readonly roots: () => readonly string[]) {}

  /** Starts watching (once); resolves when the folders are watched. */
  start(): Promise<void> {
    this.started ??= this.walk();
    return this.started;
  }

  get folderCount(): number {
    return this.watchers.size;
  }

  /** Starts keeping what changes, until the returned function is called; it returns what changed meanwhile. */
  open(): () => Promise<WindowReport> {
    const w: Window = { seen: new Map(), more: 0 };
    this.windows.add(w);
    return async () => {
      // Events the kernel queued before the command ended are read in the next poll of the loop.
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.windows.delete(w);
      return { seen: [...w.seen].map(([p, existedBefore]) => ({ path: p, existedBefore })), more: w.more };
    };
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.names.clear();
    this.windows.clear();
  }

  private async walk(): Promise<void> {
    const roots = [...new Set(this.roots())];
    this.ignored = new Set([...NEVER, ...(await gitignoredFolders(roots[0]))]);
    const queue = [...roots];
    while (queue.length > 0 && !this.closed && this.watchers.size < MAX_FOLDERS) {
      const dir = queue.shift()!;
      const subfolders = await this.watchFolder(dir);
      queue.push(...subfolders);
    }
  }

  /** Watches one folder; returns its subfolders to watch next. */
  private async watchFolder(dir: string): Promise<string[]> {
    if (this.watchers.has(dir) || this.watchers.size >= MAX_FOLDERS || this.closed) return [];
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name) this.onEvent(dir, name.toString());
      });
    } catch {
      return [];
    }
    // A folder removed or unreadable later: its watch ends, the rest go on.
    watcher.on("error", () => this.unwatch(dir));
    this.watchers.set(dir, watcher);
    const known = new Set<string>();
    for (const e of entries) {
      if (this.nameCount >= MAX_NAMES) break;
      known.add(e.name);
      this.nameCount++;
    }
    this.names.set(dir, known);
    return entries.filter((e) => e.isDirectory() && !this.ignored.has(e.name)).map((e) => path.join(dir, e.name));
  }

  private unwatch(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
    this.nameCount -= this.names.get(dir)?.size ?? 0;
    this.names.delete(dir);
  }

  private onEvent(dir: string, name: string): void {
    if (this.ignored.has(name)) return;
    const full = path.join(dir, name);
    const known = this.names.get(dir);
    const existedBefore = known?.has(name) ?? false;
    for (const w of this.windows) {
      if (w.seen.has(full)) continue;
      if (w.seen.size >= MAX_SEEN) w.more++;
      else w.seen.set(full, existedBefore);
    }
    // Keep the listing current (a name created or removed), and watch a folder made meanwhile.
    void lstat(full).then(
      (st) => {
        if (known && !known.has(name) && this.nameCount < MAX_NAMES) {
          known.add(name);
          this.nameCount++;
        }
        if (st.isDirectory()) void this.watchFolder(full).then((subs) => subs.forEach((s) => void this.watchFolder(s)));
      },
      () => {
        if (known?.delete(name)) this.nameCount--;
        if (this.watchers.has(full)) this.unwatch(full);
      },
    );
  }
}

/** Plain folder names the root's .gitignore lists (`dist/`, `/build`, `target`): build output, not watched. */
async function gitignoredFolders(root: string | undefined): Promise<string[]> {
  if (!root) return [];
  const text = await readFile(path.join(root, ".gitignore"), "utf8").catch(() => "");
  return text
    .split(/\r?\n/)
    .map((l) => l.trim().replace(/^\//, "").replace(/\/$/, ""))
    .filter((l) => l && !l.startsWith("#") && !l.startsWith("!") && !/[*?[\]/\\]/.test(l));
}
