// How a patch reads to a person: a title, an ACP tool kind and the files it touches. Used for
// the tool call the editor shows, before and after the patch runs (and for patches that fail).
import path from "node:path";
import { parsePatch, type PatchOperation } from "./parse.js";

export type PatchKind = "edit" | "delete" | "move";

export type PatchSummary = {
  title: string;
  kind: PatchKind;
  /** Absolute paths (relative ones resolved against `cwd`): each source, then its move target. */
  paths: string[];
  operations: PatchOperation[];
};

/** Undefined when the text is not a patch (the caller shows it generically). */
export function describePatch(text: string, cwd?: string): PatchSummary | undefined {
  let operations: PatchOperation[];
  try {
    operations = parsePatch(text);
  } catch {
    return undefined;
  }
  const abs = (p: string): string => (cwd && !path.isAbsolute(p) ? path.resolve(cwd, p) : p);
  const paths: string[] = [];
  for (const op of operations) {
    paths.push(abs(op.path));
    if (op.type === "update" && op.moveTo !== undefined) paths.push(abs(op.moveTo));
  }
  const only = operations.length === 1 ? operations[0] : undefined;
  if (!only)
    return {
      title: operations.length === 0 ? "Apply an empty patch" : `Edit ${operations.length} files`,
      kind: "edit",
      paths,
      operations,
    };
  if (only.type === "delete") return { title: `Delete ${paths[0]}`, kind: "delete", paths, operations };
  if (only.type === "add") return { title: `Create ${paths[0]}`, kind: "edit", paths, operations };
  if (only.moveTo !== undefined) return { title: `Move ${paths[0]} to ${paths[1]}`, kind: "move", paths, operations };
  return { title: `Edit ${paths[0]}`, kind: "edit", paths, operations };
}
