// Unified diffs as Codex reports them in fileChange items (`@@ -a,b +c,d @@` hunks without
// file headers), applied to a file's old text so the editor can show a full before/after diff
// before the patch lands (and while the user is asked to approve it).
/** Files larger than this are not read into a diff (the hunks are shown instead); TextFiles implementations honour it. */
export const MAX_DIFF_FILE_BYTES = 1024 * 1024;

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Applies the hunks of `diff` to `oldText`. Returns undefined when the diff does not fit
 * (context or removed lines differ), so callers can fall back to reading the result from disk.
 */
export function applyUnifiedDiff(oldText: string, diff: string): string | undefined {
  const old = oldText.split("\n");
  const out: string[] = [];
  const lines = diff.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  let ptr = 0; // index into old
  let sawHunk = false;
  let noNewlineAtEnd = false;
  let lastWasAdd = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = HUNK.exec(line);
    if (h) {
      sawHunk = true;
      const start = Math.max(0, Number(h[1]) - 1);
      // An empty old range (`-0,0`) means "insert before line 1".
      const at = h[2] === "0" ? Number(h[1]) : start;
      if (at < ptr) return undefined;
      while (ptr < at && ptr < old.length) out.push(old[ptr++]!);
      continue;
    }
    if (!sawHunk) continue; // headers (---/+++/diff --git) before the first hunk
    if (line.startsWith("\\")) {
      // "\ No newline at end of file" applies to the line before it.
      if (lastWasAdd) noNewlineAtEnd = true;
      continue;
    }
    const tag = line[0];
    const body = line.slice(1);
    if (tag === " " || (tag === undefined && line === "")) {
      if (old[ptr] !== body) return undefined;
      out.push(old[ptr++]!);
      lastWasAdd = false;
    } else if (tag === "-") {
      if (old[ptr] !== body) return undefined;
      ptr++;
      lastWasAdd = false;
    } else if (tag === "+") {
      out.push(body);
      lastWasAdd = true;
    } else {
      return undefined;
    }
  }
  if (!sawHunk) return undefined;
  while (ptr < old.length) out.push(old[ptr++]!);
  let text = out.join("\n");
  if (noNewlineAtEnd && text.endsWith("\n")) text = text.slice(0, -1);
  return text;
}

/** The text of an added file from its diff: either plain content or `+` lines of one hunk. */
export function addedFileText(diff: string): string {
  if (!HUNK.test(diff.split("\n", 1)[0] ?? "")) return diff;
  return applyUnifiedDiff("", diff) ?? diff;
}
