// A v1 diff (a path with its old and new text) as a v2 file-state diff: the structured change
// (add, delete, modify, move) that clients read without parsing, and the same change as a git
// patch to render. jsdiff computes the hunks (a well-kept library; a diff is easy to get subtly
// wrong by hand); the git header around them is ours, so paths stay absolute in `changes`.
import { createTwoFilesPatch } from "diff";
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { CHANGE_META_KEY } from "../editor-files/contract/index.js";

type V1Diff = Extract<v1.ToolCallContent, { type: "diff" }>;
type V2Diff = Extract<v2.ToolCallContent, { type: "diff" }>;

/** One file's operation as its tool call lists it, by the path its v1 diff shows (a move's target). */
export type FileOperation =
  | { operation: "add" }
  | { operation: "modify" }
  | { operation: "delete" }
  | { operation: "move"; oldPath: string };

/**
 * What the tool call says about its change, which a v1 diff alone cannot: a delete, or a move's
 * source. `files` is each file's operation when the call lists them (a patch of several files);
 * else the call's kind and, for a move, its source say it for its one file.
 */
export type ChangeHint = { kind?: v1.ToolKind | null; from?: string; files?: ReadonlyMap<string, FileOperation> };

/** The git path of an absolute path (`a/` and `b/` prefixes over a path without its root). */
const gitPath = (side: "a" | "b", absolute: string): string =>
  `${side}/${absolute
    .replace(/^[A-Za-z]:/, "")
    .replace(/\\/g, "/")
    .replace(/^\/+/, "")}`;

/** The change's operation, from the texts and what the tool call says it is. */
function changeOf(diff: V1Diff, hint: ChangeHint): v2.DiffChange {
  const listed = hint.files?.get(diff.path);
  if (listed) return { ...listed, path: diff.path };
  // A diff that says it is a delete (a file a command removed: its new side is empty, not a file emptied).
  const marked: unknown = diff._meta?.[CHANGE_META_KEY];
  if (marked && typeof marked === "object" && Reflect.get(marked, "operation") === "delete")
    return { operation: "delete", path: diff.path };
  if (diff.oldText === null || diff.oldText === undefined) return { operation: "add", path: diff.path };
  if (hint.kind === "delete" && diff.newText === "") return { operation: "delete", path: diff.path };
  if (hint.kind === "move" && hint.from && hint.from !== diff.path)
    return { operation: "move", oldPath: hint.from, path: diff.path };
  return { operation: "modify", path: diff.path };
}

/** A git patch of one change: `diff --git`, the mode lines git writes for a new or deleted file, then the hunks. */
function gitPatch(change: v2.DiffChange, oldText: string, newText: string): string {
  const to = "path" in change && typeof change.path === "string" ? change.path : "";
  const from =
    change.operation === "move" && "oldPath" in change && typeof change.oldPath === "string" ? change.oldPath : to;
  const header = [`diff --git ${gitPath("a", from)} ${gitPath("b", to)}`];
  if (change.operation === "add") header.push("new file mode 100644");
  if (change.operation === "delete") header.push("deleted file mode 100644");
  if (change.operation === "move")
    header.push(`rename from ${gitPath("a", from).slice(2)}`, `rename to ${gitPath("b", to).slice(2)}`);
  const oldName = change.operation === "add" ? "/dev/null" : gitPath("a", from);
  const newName = change.operation === "delete" ? "/dev/null" : gitPath("b", to);
  // createTwoFilesPatch starts with an "Index:"/"===" pair jsdiff writes; git's own header replaces it.
  const body = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, { context: 3 })
    .split("\n")
    .filter((line, i) => i > 1 || !(line.startsWith("Index:") || line.startsWith("====")))
    .join("\n");
  const hunks = body.startsWith("--- ") && !body.includes("\n@@") ? "" : body;
  return `${header.join("\n")}\n${hunks}`;
}

/** A v1 diff as a v2 diff: the file state change, and its git patch. */
export function toV2Diff(diff: V1Diff, hint: ChangeHint): V2Diff {
  const change = changeOf(diff, hint);
  const text = gitPatch(change, diff.oldText ?? "", change.operation === "delete" ? "" : diff.newText);
  return {
    type: "diff",
    changes: [change],
    patch: { format: "git_patch", text },
    ...(diff._meta ? { _meta: diff._meta } : {}),
  };
}
