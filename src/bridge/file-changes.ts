// Codex's own patches (fileChange items) as diffs: the full before and after of every file
// when they can be known, Codex's hunks as text otherwise. Files are read only through the
// injected TextFiles port (history replay passes none: today's files say nothing about then).
import type { ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk/unstable";
import { addedFileText, applyUnifiedDiff } from "./diff.js";
import { textContent, type FileBefore, type ItemOf, type TextFiles, type ToolCallView } from "./view.js";

type FileChangeItem = ItemOf<"fileChange">;

type Change = FileChangeItem["changes"][number];

const moveTarget = (c: Change): string | undefined =>
  c.kind.type === "update" ? (c.kind.move_path ?? undefined) : undefined;

/** A change's hunks: Codex writes a move's diff as its hunks then "\n\nMoved to: <target>", which is no hunk line. */
function hunksOf(c: Change): string {
  const to = moveTarget(c);
  const suffix = to === undefined ? undefined : `\n\nMoved to: ${to}`;
  return suffix !== undefined && c.diff.endsWith(suffix) ? c.diff.slice(0, -suffix.length) : c.diff;
}

/** The current text of every file a fileChange touches (read before the patch applies). */
export function snapshotFileChange(item: FileChangeItem, files: TextFiles): FileBefore {
  const before: FileBefore = new Map();
  for (const c of item.changes) before.set(c.path, c.kind.type === "add" ? null : files.read(c.path));
  return before;
}

/** Diff content of a fileChange: before = snapshot; after = predicted from the hunks, or read (afterFromFiles). */
export function fileChangeDiffs(
  item: FileChangeItem,
  before: FileBefore | undefined,
  afterFromFiles: boolean,
  files: TextFiles | undefined,
): ToolCallContent[] {
  const read = (p: string): string | undefined => files?.read(p);
  const content: ToolCallContent[] = [];
  for (const c of item.changes) {
    const target = moveTarget(c) ?? c.path;
    if (c.kind.type === "add") {
      const newText = (afterFromFiles ? read(c.path) : undefined) ?? addedFileText(c.diff);
      content.push({ type: "diff", path: c.path, oldText: null, newText });
      continue;
    }
    const oldText = before?.get(c.path) ?? (afterFromFiles ? undefined : read(c.path));
    if (c.kind.type === "delete") {
      content.push({ type: "diff", path: c.path, oldText: oldText ?? c.diff, newText: "" });
      continue;
    }
    let newText = afterFromFiles ? read(target) : undefined;
    if (newText === undefined && oldText !== undefined && oldText !== null)
      newText = applyUnifiedDiff(oldText, hunksOf(c));
    if (oldText !== undefined && oldText !== null && newText !== undefined) {
      content.push({ type: "diff", path: target, oldText, newText });
    } else {
      // Too large or unreadable: show Codex's hunks as text rather than a wrong diff.
      content.push(textContent(`${target}\n${c.diff}`));
    }
  }
  return content;
}

/** How a fileChange looks when it starts. */
export function describeFileChange(
  item: FileChangeItem,
  before: FileBefore | undefined,
  files: TextFiles | undefined,
): ToolCallView {
  const changes = item.changes;
  // A move names where the file goes too: "Move A" alone hides that A is gone and where it went.
  const titleOf = (c: Change): string => {
    const to = moveTarget(c);
    return c.kind.type === "add"
      ? `Create ${c.path}`
      : c.kind.type === "delete"
        ? `Delete ${c.path}`
        : to
          ? `Move ${c.path} to ${to}`
          : `Edit ${c.path}`;
  };
  const locations: ToolCallLocation[] = [];
  for (const c of changes) {
    locations.push({ path: c.path });
    const to = moveTarget(c);
    if (to) locations.push({ path: to });
  }
  const only = changes.length === 1 ? changes[0] : undefined;
  return {
    title: only ? titleOf(only) : `Edit ${changes.length} files`,
    kind: only?.kind.type === "delete" ? "delete" : only && moveTarget(only) ? "move" : "edit",
    locations,
    rawInput: {
      changes: changes.map((c) => ({
        path: c.path,
        kind: c.kind.type,
        ...(moveTarget(c) ? { movePath: moveTarget(c) } : {}),
      })),
    },
    content: fileChangeDiffs(item, before, false, files),
  };
}
