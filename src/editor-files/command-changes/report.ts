// A command's changes as the user and the model see them: ACP v1 diffs on the command's card (a
// new file has no old side; a deleted file is marked deleted, with an empty new side), a line for
// what has no text to show (a binary, a large file, a file that became a folder), and a warning
// where the editor held unsaved changes to a file the command changed on disk.
import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { CHANGE_META_KEY } from "../contract/index.js";
import type { CommandReport } from "./tracker.js";
import type { Change } from "./snapshot.js";

/** Diffs shown on one card at most; past this the rest are named in one line. */
export const MAX_SHOWN_DIFFS = 20;

const text = (t: string): ToolCallContent => ({ type: "content", content: { type: "text", text: t } });

/** Why a changed file has no diff. */
function untold(c: Change): string | undefined {
  if (c.op === "replace") return `${c.path}: ${c.what}`;
  if (c.op === "unnamed") return `${c.path}: ${c.what} (not named in the command, so its earlier text is not shown)`;
  const state = c.op === "delete" ? c.before : c.after;
  const other = c.op === "modify" ? c.before : undefined;
  const why = state.why ?? other?.why;
  if (state.text !== undefined && (c.op !== "modify" || c.before.text !== undefined)) return undefined;
  const verb = c.op === "add" ? "created" : c.op === "delete" ? "deleted" : "changed";
  return `${c.path}: ${verb} (${why === "binary" ? "a binary file" : why === "large" ? `${state.size} bytes, too large to show` : "not shown"})`;
}

/** The card's content for a command's changes (empty when it changed nothing). */
export function reportContent(report: CommandReport): ToolCallContent[] {
  const out: ToolCallContent[] = [];
  const lines: string[] = [];
  let shown = 0;
  for (const c of report.changes) {
    const why = untold(c);
    if (why !== undefined) {
      lines.push(why);
      continue;
    }
    if (shown === MAX_SHOWN_DIFFS) {
      lines.push(`${c.path}: ${c.op === "add" ? "created" : c.op === "delete" ? "deleted" : "changed"}`);
      continue;
    }
    shown++;
    if (c.op === "add") out.push({ type: "diff", path: c.path, oldText: null, newText: c.after.text ?? "" });
    else if (c.op === "delete")
      out.push({
        type: "diff",
        path: c.path,
        oldText: c.before.text ?? "",
        newText: "",
        _meta: { [CHANGE_META_KEY]: { operation: "delete" } },
      });
    else if (c.op === "modify")
      out.push({ type: "diff", path: c.path, oldText: c.before.text ?? "", newText: c.after.text ?? "" });
  }
  const more = (lines.length > MAX_SHOWN_DIFFS ? lines.splice(MAX_SHOWN_DIFFS).length : 0) + report.more;
  if (more > 0) lines.push(`and ${more} more files`);
  if (lines.length > 0) out.push(text(`Also changed by this command:\n${lines.join("\n")}`));
  if (report.unsaved.length > 0) out.push(text(unsavedWarning(report.unsaved)));
  return out;
}

/** What the user and the model are told when a command changed files the editor held unsaved. */
export function unsavedWarning(paths: readonly string[]): string {
  const names = paths.join(", ");
  return (
    `Warning: the editor has unsaved changes to ${names}, which this command changed on disk. ` +
    `The editor still shows its own text, not what the command wrote: read the file again before building on it, and let the user decide which version to keep.`
  );
}

/** What the model is told after the command (the PostToolUse hook's context), or undefined when there is nothing to say. */
export function modelNote(report: CommandReport): string | undefined {
  return report.unsaved.length > 0 ? `codex-cli-acp: ${unsavedWarning(report.unsaved)}` : undefined;
}
