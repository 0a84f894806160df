// One session's commands and what they changed. Codex runs our PreToolUse hook right before a
// shell command (the hook asks us, and the command waits for our answer): the files the command
// names are looked at then, before anything ran. When the command has ended (its item completed,
// or our PostToolUse hook, whichever comes first) they are looked at again; what differs is the
// command's change, shown on its card before it is reported completed, and a file the editor held
// with unsaved changes is said to the user and to the model.
import { commandPaths } from "./candidates.js";
import { changeOf, fileState, type Change, type FileState } from "./snapshot.js";
import type { FolderWatch, WindowReport } from "./watch.js";

/** Commands looked at and not yet ended, at most: a hook whose command never ran is forgotten first. */
const MAX_PENDING = 64;

export type CommandReport = {
  changes: Change[];
  /** Paths past what is kept per command (the watch's limit): counted, not named. */
  more: number;
  /** Paths whose editor text differed from the disk before the command (unsaved changes the editor keeps). */
  unsaved: string[];
};

export type CommandChangesOptions = {
  /** The session's writable roots (its workspace folders): only files in them are looked at. */
  roots(): readonly string[];
  /** The editor's text of a file (its buffer, saved or not), when the client serves reads; undefined when it cannot say. */
  editorText?(path: string): Promise<string | undefined>;
  /** The watch of the roots, for what a command changes without naming it (none: only named files are looked at). */
  watch?: FolderWatch;
};

type Pending = { paths: string[]; before: Promise<Map<string, FileState>>; seen?: () => Promise<WindowReport> };

export class CommandChanges {
  private readonly pending = new Map<string, Pending>();
  private readonly reports = new Map<string, Promise<CommandReport>>();

  constructor(private readonly opts: CommandChangesOptions) {}

  /** Looks at the files `command` names, before it runs. Resolves once they are looked at. */
  async before(callId: string, command: string, cwd: string): Promise<void> {
    if (this.pending.has(callId)) return;
    const paths = commandPaths(command, cwd, this.opts.roots());
    const watch = this.opts.watch;
    if (watch) await watch.start();
    if (paths.length === 0 && !watch) return;
    const before = snapshot(paths);
    this.pending.set(callId, { paths, before, ...(watch ? { seen: watch.open() } : {}) });
    while (this.pending.size > MAX_PENDING) {
      const [oldest, dropped] = this.pending.entries().next().value!;
      this.pending.delete(oldest);
      void dropped.seen?.();
    }
    await before;
  }

  /**
   * What the command changed, once it has ended (the same answer to every caller: its card and
   * the hook after it); undefined for a command not looked at before it ran.
   */
  after(callId: string): Promise<CommandReport> | undefined {
    const known = this.reports.get(callId);
    if (known) return known;
    const pending = this.pending.get(callId);
    if (!pending) return undefined;
    this.pending.delete(callId);
    const report = this.compare(pending);
    this.reports.set(callId, report);
    // Kept while both askers may come (the card, the hook); a second report is the same promise.
    while (this.reports.size > MAX_PENDING) this.reports.delete(this.reports.keys().next().value!);
    return report;
  }

  /** What it holds (for the soak: it must stay flat). */
  get sizes(): { commandsPending: number; commandReports: number } {
    return { commandsPending: this.pending.size, commandReports: this.reports.size };
  }

  /** Forgets everything (the session closed, or codex restarted: no hook answers are awaited). */
  clear(): void {
    for (const p of this.pending.values()) void p.seen?.();
    this.pending.clear();
    this.reports.clear();
  }

  private async compare(pending: Pending): Promise<CommandReport> {
    const before = await pending.before;
    const [after, seen] = await Promise.all([snapshot(pending.paths), pending.seen?.()]);
    const changes: Change[] = [];
    for (const p of pending.paths) {
      const change = changeOf(p, before.get(p) ?? { kind: "absent" }, after.get(p) ?? { kind: "absent" });
      if (change) changes.push(change);
    }
    if (seen) changes.push(...(await unnamedChanges(seen, new Set(pending.paths))));
    const more = seen?.more ?? 0;
    const unsaved: string[] = [];
    if (this.opts.editorText) {
      for (const c of changes) {
        if (c.op !== "modify" && c.op !== "delete") continue;
        const was = c.before.text;
        const now = c.op === "modify" ? c.after.text : undefined;
        const shown = was === undefined ? undefined : await this.opts.editorText(c.path).catch(() => undefined);
        // The editor shows neither what the disk had nor what it has now: it holds its own text.
        if (shown !== undefined && shown !== was && shown !== now) unsaved.push(c.path);
      }
    }
    return { changes, unsaved, more };
  }
}

/** What the watch saw change that the command did not name: a new file whole, a changed or deleted one by name. */
async function unnamedChanges(seen: WindowReport, named: ReadonlySet<string>): Promise<Change[]> {
  const out: Change[] = [];
  for (const { path, existedBefore } of seen.seen) {
    if (named.has(path)) continue;
    const now = await fileState(path);
    if (!existedBefore && now.kind === "file") out.push({ path, op: "add", after: now });
    else if (existedBefore && now.kind === "file") out.push({ path, op: "unnamed", what: "changed" });
    else if (existedBefore && now.kind === "absent") out.push({ path, op: "unnamed", what: "deleted" });
  }
  return out;
}

async function snapshot(paths: readonly string[]): Promise<Map<string, FileState>> {
  const states = await Promise.all(paths.map((p) => fileState(p)));
  return new Map(paths.map((p, i) => [p, states[i]!]));
}
