// Parser of Codex's patch grammar (the text the model passes to `apply_patch`):
//
//   *** Begin Patch
//   *** Add File: <path>         then "+"-prefixed lines (the whole new file)
//   *** Delete File: <path>
//   *** Update File: <path>
//   *** Move to: <path>          optional, right after Update
//   @@ [a line to anchor on]     then " " context, "-" removed and "+" added lines
//   *** End of File              optional, after a hunk that must end the file
//   *** End Patch
//
// As lenient as Codex's own parser, because models are trained against it: markers may carry
// surrounding spaces, a heredoc wrapper (<<'EOF' ... EOF) is peeled off, the first hunk of an
// Update may omit its "@@" line, blank lines between hunks are skipped, and an empty line inside
// a hunk is an empty context line.

export type PatchHunk = {
  /** The text after "@@ ", a line the hunk must come after (usually a function or class header). */
  anchor?: string;
  /** Lines that must be found in the file (context and removed lines, in order). */
  oldLines: string[];
  /** What replaces them (context and added lines, in order). */
  newLines: string[];
  /** For each new line that is a context line, the index of the same line in oldLines. */
  contextOf: Array<number | undefined>;
  /** "*** End of File" followed: the old lines must be the last lines of the file. */
  endOfFile: boolean;
  /** 1-based line of the patch where this hunk starts (for error messages). */
  patchLine: number;
};

export type PatchOperation =
  | { type: "add"; path: string; content: string }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; moveTo?: string; hunks: PatchHunk[] };

export class PatchSyntaxError extends Error {
  constructor(
    message: string,
    /** 1-based line of the patch text, when the error is about one line. */
    readonly patchLine?: number,
  ) {
    super(patchLine === undefined ? message : `line ${patchLine}: ${message}`);
    this.name = "PatchSyntaxError";
  }
}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
// Markers of file operations, matched without their trailing space (the path is trimmed).
const ADD = "*** Add File:";
const DELETE = "*** Delete File:";
const UPDATE = "*** Update File:";
const MOVE = "*** Move to:";
const END_OF_FILE = "*** End of File";
const HEREDOC_OPENERS: ReadonlySet<string> = new Set(["<<EOF", "<<'EOF'", '<<"EOF"']);

/** Parses a whole patch. Throws PatchSyntaxError naming the line that is wrong. */
export function parsePatch(text: string): PatchOperation[] {
  let lines = text.trim().split(/\r?\n/);
  let firstLineNumber = 1;
  if (lines.length >= 4 && HEREDOC_OPENERS.has(lines[0]!.trim()) && lines[lines.length - 1]!.trim().endsWith("EOF")) {
    lines = lines.slice(1, -1);
    firstLineNumber = 2;
  }
  if (lines[0]?.trim() !== BEGIN) throw new PatchSyntaxError(`the first line must be '${BEGIN}'`, firstLineNumber);
  if (lines.length < 2 || lines[lines.length - 1]!.trim() !== END) {
    throw new PatchSyntaxError(`the last line must be '${END}'`, firstLineNumber + lines.length - 1);
  }
  const body = lines.slice(1, -1);
  const ops: PatchOperation[] = [];
  let i = 0;
  const lineNo = (index: number): number => firstLineNumber + 1 + index;
  while (i < body.length) {
    const header = body[i]!.trim();
    if (header === "") {
      i++;
      continue;
    }
    if (header.startsWith(ADD)) {
      const path = filePath(header.slice(ADD.length), lineNo(i));
      let content = "";
      i++;
      while (i < body.length && body[i]!.startsWith("+")) content += `${body[i++]!.slice(1)}\n`;
      ops.push({ type: "add", path, content });
    } else if (header.startsWith(DELETE)) {
      ops.push({ type: "delete", path: filePath(header.slice(DELETE.length), lineNo(i)) });
      i++;
    } else if (header.startsWith(UPDATE)) {
      const start = i;
      const path = filePath(header.slice(UPDATE.length), lineNo(i));
      i++;
      let moveTo: string | undefined;
      if (i < body.length && body[i]!.trim().startsWith(MOVE)) {
        moveTo = filePath(body[i]!.trim().slice(MOVE.length), lineNo(i));
        i++;
      }
      const hunks: PatchHunk[] = [];
      while (i < body.length) {
        if (body[i]!.trim() === "") {
          i++;
          continue;
        }
        if (body[i]!.startsWith("***")) break;
        const { hunk, next } = parseHunk(body, i, hunks.length === 0, lineNo);
        hunks.push(hunk);
        i = next;
      }
      if (hunks.length === 0 && moveTo === undefined)
        throw new PatchSyntaxError(`the update of '${path}' has no hunks`, lineNo(start));
      ops.push(moveTo === undefined ? { type: "update", path, hunks } : { type: "update", path, moveTo, hunks });
    } else {
      throw new PatchSyntaxError(
        `'${header}' is not a file operation; expected '${ADD} <path>', '${DELETE} <path>' or '${UPDATE} <path>'`,
        lineNo(i),
      );
    }
  }
  return ops;
}

function filePath(raw: string, line: number): string {
  const p = raw.trim();
  if (!p) throw new PatchSyntaxError("a file operation needs a path", line);
  return p;
}

function parseHunk(
  body: string[],
  start: number,
  isFirst: boolean,
  lineNo: (index: number) => number,
): { hunk: PatchHunk; next: number } {
  let i = start;
  const first = body[i]!;
  let anchor: string | undefined;
  if (first.trim() === "@@") i++;
  else if (first.startsWith("@@ ")) {
    anchor = first.slice(3);
    i++;
  } else if (!isFirst) {
    throw new PatchSyntaxError(`expected a hunk starting with '@@', got '${first}'`, lineNo(i));
  }
  const hunk: PatchHunk = { oldLines: [], newLines: [], contextOf: [], endOfFile: false, patchLine: lineNo(start) };
  const context = (text: string): void => {
    hunk.contextOf[hunk.newLines.length] = hunk.oldLines.length;
    hunk.oldLines.push(text);
    hunk.newLines.push(text);
  };
  if (anchor !== undefined) hunk.anchor = anchor;
  let taken = 0;
  for (; i < body.length; i++) {
    const line = body[i]!;
    if (line.trim() === END_OF_FILE) {
      if (taken === 0) break;
      hunk.endOfFile = true;
      i++;
      break;
    }
    const marker = line[0];
    if (line === "") {
      context("");
    } else if (marker === " ") {
      context(line.slice(1));
    } else if (marker === "-") {
      hunk.oldLines.push(line.slice(1));
    } else if (marker === "+") {
      hunk.contextOf[hunk.newLines.length] = undefined;
      hunk.newLines.push(line.slice(1));
    } else {
      if (taken === 0) {
        throw new PatchSyntaxError(
          `unexpected line '${line}': every hunk line starts with ' ' (context), '-' (removed) or '+' (added)`,
          lineNo(i),
        );
      }
      break; // the next hunk (or operation) begins
    }
    taken++;
  }
  if (taken === 0) throw new PatchSyntaxError("a hunk has no lines", lineNo(start));
  return { hunk, next: i };
}

/** Every path a patch names (sources and move targets), in order, without duplicates. */
export function patchPaths(ops: readonly PatchOperation[]): string[] {
  const seen = new Set<string>();
  for (const op of ops) {
    seen.add(op.path);
    if (op.type === "update" && op.moveTo !== undefined) seen.add(op.moveTo);
  }
  return [...seen];
}
