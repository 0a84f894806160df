// One session's commands and what they changed. Codex runs our PreToolUse hook right before a
// shell command (the hook asks us, and the command waits for our answer): the files the command
// names are looked at then, before anything ran. When the command has ended (its item completed,
// or our PostToolUse hook, whichever comes first) they are looked at again; what differs is the
// command's change, shown on its card before it is reported completed, and a file the editor held
// with unsaved changes is said to the user and to the model.
import { commandPaths } from "./candidates.js";
import { changeOf, fileState, type Change, type FileState } from "./snapshot.js";

/** Commands looked at and not yet ended, at most: a hook whose command never ran is forgotten first. */
const MAX_PENDING = 64;

export type CommandReport = {
  changes: Change[];
  /** Paths whose editor text differed from the disk before the command (unsaved changes the editor keeps). */
  unsaved: string[];
};

export type CommandChangesOptions = {
  /** The session's writable roots (its workspace folders): only files in them are looked at. */
  roots(): readonly string[];
  /** The editor's text of a file (its buffer, saved or not), when the client serves reads; undefined when it cannot say. */
  editorText?(path: string): Promise<string | undefined>;
};

type Pending = { paths: string[]; before: Promise<Map<string, FileState>> };

export class CommandChanges {
  private readonly pending = new Map<string, Pending>();
  private readonly reports = new Map<string, Promise<CommandReport>>();

  constructor(private readonly opts: CommandChangesOptions) {}

  /** Looks at the files `command` names, before it runs. Resolves once they are looked at. */
  async before(callId: string, command: string, cwd: string): Promise<void> {
    const paths = commandPaths(command, cwd, this.opts.roots());
    if (paths.length === 0 || this.pending.has(callId)) return;
    const before = snapshot(paths);
    this.pending.set(callId, { paths, before });
    while (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    await before;
  }

  /** Whether the command `callId` was looked at before it ran (and has not been reported yet). */
  watching(callId: string): boolean {
    return this.pending.has(callId) || this.reports.has(callId);
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

  /** Forgets everything (the session closed, or codex restarted: no hook answers are awaited). */
  clear(): void {
    this.pending.clear();
    this.reports.clear();
  }

  private async compare(pending: Pending): Promise<CommandReport> {
    const before = await pending.before;
    const after = await snapshot(pending.paths);
    const changes: Change[] = [];
    for (const p of pending.paths) {
      const change = changeOf(p, before.get(p) ?? { kind: "absent" }, after.get(p) ?? { kind: "absent" });
      if (change) changes.push(change);
    }
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
    return { changes, unsaved };
  }
}

async function snapshot(paths: readonly string[]): Promise<Map<string, FileState>> {
  const states = await Promise.all(paths.map((p) => fileState(p)));
  return new Map(paths.map((p, i) => [p, states[i]!]));
}
