// Applies the hunks of one "*** Update File" to a file's text. Pure: text in, text out.
//
// Hunks are located the way Codex locates them, so a model gets the behaviour it was trained
// on: in order, each searched for below the previous one (below its "@@" anchor line, if any),
// first exactly, then ignoring trailing whitespace, then ignoring surrounding whitespace, then
// with typographic dashes, quotes and spaces read as their ASCII forms. A hunk marked
// "*** End of File" is looked for at the end of the file first.
//
// Where we differ from Codex on purpose, because the result goes to an editor buffer and the
// user reviews it as a diff: the file's line endings (CRLF or LF) are kept, and so is the
// presence or absence of a final newline (Codex writes LF and always ends with a newline);
// context lines keep the file's text when they matched only loosely (Codex rewrites them).
import type { PatchHunk } from "./parse.js";

export class PatchConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatchConflictError";
  }
}

/** Lines shown, at most, when a hunk's lines are quoted in an error. */
const QUOTED_LINES = 12;

type Replacement = { start: number; length: number; lines: string[]; hunk: number };

/** The new text of `text` after `hunks`. Throws PatchConflictError naming `label` and the lines not found. */
export function applyHunks(text: string, hunks: readonly PatchHunk[], label: string): string {
  const eol = dominantLineEnding(text);
  const endsWithNewline = text === "" || text.endsWith("\n");
  const lines = splitLines(text);
  const replacements: Replacement[] = [];
  let from = 0;
  hunks.forEach((hunk, index) => {
    const where = hunks.length > 1 ? ` (hunk ${index + 1} of ${hunks.length}, patch line ${hunk.patchLine})` : "";
    if (hunk.anchor !== undefined) {
      const at = seekLines(lines, [hunk.anchor], from, false);
      if (at === undefined) {
        throw new PatchConflictError(
          `The patch does not apply to ${label}${where}: no line matching the @@ anchor '${hunk.anchor}'${from > 0 ? ` below line ${from}` : ""}.`,
        );
      }
      from = at + 1;
    }
    if (hunk.oldLines.length === 0) {
      // Nothing to match: the new lines go at the end of the file.
      replacements.push({ start: lines.length, length: 0, lines: hunk.newLines, hunk: index });
      return;
    }
    let oldLines = hunk.oldLines;
    let newLines = hunk.newLines;
    let at = seekLines(lines, oldLines, from, hunk.endOfFile);
    if (at === undefined && oldLines.at(-1) === "") {
      // A trailing empty line often stands for the file's final newline, not a blank line.
      oldLines = oldLines.slice(0, -1);
      if (newLines.at(-1) === "") newLines = newLines.slice(0, -1);
      at = seekLines(lines, oldLines, from, hunk.endOfFile);
    }
    if (at === undefined) {
      throw new PatchConflictError(
        `The patch does not apply to ${label}${where}: these lines were not found${from > 0 ? ` below line ${from}` : ""}:\n${quote(hunk.oldLines)}`,
      );
    }
    // Context lines keep the file's own text (a fuzzy match must not rewrite them).
    const start = at;
    const replaced = newLines.map((line, j) => {
      const k = hunk.contextOf[j];
      return k !== undefined && k < oldLines.length ? lines[start + k]! : line;
    });
    replacements.push({ start, length: oldLines.length, lines: replaced, hunk: index });
    from = at + oldLines.length;
  });
  return joinLines(rebuild(lines, replacements, label), eol, endsWithNewline);
}

function quote(lines: readonly string[]): string {
  const shown = lines.slice(0, QUOTED_LINES).map((l) => `  ${l}`);
  if (lines.length > QUOTED_LINES) shown.push(`  … (${lines.length - QUOTED_LINES} more lines)`);
  return shown.join("\n");
}

/** One pass over the original lines; hunks that claim the same lines are a conflict. */
function rebuild(lines: string[], replacements: Replacement[], label: string): string[] {
  const sorted = [...replacements].sort((a, b) => a.start - b.start || a.hunk - b.hunk);
  const out: string[] = [];
  let cursor = 0;
  for (const r of sorted) {
    if (r.start < cursor) {
      throw new PatchConflictError(
        `The patch does not apply to ${label}: hunk ${r.hunk + 1} changes lines that another hunk already changes (line ${r.start + 1}).`,
      );
    }
    for (let i = cursor; i < r.start; i++) out.push(lines[i]!);
    for (const l of r.lines) out.push(l);
    cursor = r.start + r.length;
  }
  for (let i = cursor; i < lines.length; i++) out.push(lines[i]!);
  return out;
}

/** "\r\n" when most line breaks of the text are CRLF, else "\n". */
function dominantLineEnding(text: string): "\n" | "\r\n" {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

/** The text's lines without their line endings ("a\r\nb\n" -> ["a", "b"]). */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.endsWith("\r")) lines[i] = l.slice(0, -1);
  }
  return lines;
}

function joinLines(lines: string[], eol: string, finalNewline: boolean): string {
  if (lines.length === 0) return "";
  return lines.join(eol) + (finalNewline ? eol : "");
}

const FUZZ_LEVELS: ReadonlyArray<(s: string) => string> = [
  (s) => s,
  (s) => s.trimEnd(),
  (s) => s.trim(),
  (s) => asciiPunctuation(s.trim()),
];

/**
 * Index of the first place at or after `from` where `pattern` matches `lines`, trying each level
 * of leniency over the whole range before the next. `atEnd`: try the end of the file first.
 */
function seekLines(
  lines: readonly string[],
  pattern: readonly string[],
  from: number,
  atEnd: boolean,
): number | undefined {
  if (pattern.length === 0) return from;
  if (pattern.length > lines.length) return undefined;
  const last = lines.length - pattern.length;
  for (const norm of FUZZ_LEVELS) {
    const want = pattern.map(norm);
    const matchesAt = (i: number): boolean => {
      for (let k = 0; k < want.length; k++) if (norm(lines[i + k]!) !== want[k]) return false;
      return true;
    };
    if (atEnd && matchesAt(last)) return last;
    for (let i = from; i <= last; i++) if (matchesAt(i)) return i;
  }
  return undefined;
}

const PUNCTUATION: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries([..."\u2010\u2011\u2012\u2013\u2014\u2015\u2212"].map((c) => [c, "-"])),
  ...Object.fromEntries([..."\u2018\u2019\u201A\u201B"].map((c) => [c, "'"])),
  ...Object.fromEntries([..."\u201C\u201D\u201E\u201F"].map((c) => [c, '"'])),
  ...Object.fromEntries(
    [..."\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000"].map((c) => [c, " "]),
  ),
});
const PUNCTUATION_RE = new RegExp(`[${Object.keys(PUNCTUATION).join("")}]`, "g");

/** Typographic dashes, quotes and spaces as their ASCII forms. */
function asciiPunctuation(s: string): string {
  return s.replace(PUNCTUATION_RE, (c) => PUNCTUATION[c]!);
}
