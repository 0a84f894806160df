// Line windows, shared by both backends.
// A line ends with "\n" (a "\r\n" ending stays part of the line's text); a final line without
// "\n" is a line; an empty text has 0 lines. A window is [line, line + limit) in 1-based lines.

export type Window = { line: number; limit?: number | undefined };
export type LineSlice = {
  content: string;
  total_lines: number;
  returned_lines: number;
  has_more: boolean;
  next_line?: number;
};

/** Builds the result fields from a window and the exact line count. */
export function windowResult(content: string, total: number, returned: number, w: Window): LineSlice {
  const after = w.line - 1 + returned; // lines up to and including the window
  const has_more = returned > 0 ? after < total : false;
  const r: LineSlice = { content, total_lines: total, returned_lines: returned, has_more };
  if (has_more) r.next_line = after + 1;
  return r;
}

/** Selects the window's lines of an in-memory text (the editor's buffer), exact to the character. */
export function sliceText(text: string, w: Window): LineSlice {
  const end = w.limit === undefined ? Infinity : w.line + w.limit; // first line number after the window
  let lineNo = 1;
  let pos = 0;
  let start = -1;
  let stop = -1;
  if (w.line === 1) start = 0;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const next = nl === -1 ? text.length : nl + 1;
    lineNo++;
    pos = next;
    if (lineNo === w.line) start = pos;
    if (lineNo === end) stop = pos;
  }
  // pos === text.length; lineNo - 1 complete-or-partial lines seen
  const total = text.length === 0 ? 0 : lineNo - 1;
  if (start === -1 || start >= text.length) return windowResult("", total, 0, w);
  const content = text.slice(start, stop === -1 ? text.length : stop);
  const returned = Math.min(total, end - 1) - (w.line - 1);
  return windowResult(content, total, returned, w);
}

/** Number of lines of a text under the rule above. */
export function countTextLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  let pos = text.indexOf("\n");
  while (pos !== -1) {
    n++;
    pos = text.indexOf("\n", pos + 1);
  }
  return text.endsWith("\n") ? n : n + 1;
}

/** True when a NUL occurs in the first `bytes` bytes of the text's UTF-8 encoding. */
export function textHasNulWithin(text: string, bytes: number): boolean {
  const i = text.indexOf("\0");
  if (i === -1) return false;
  return Buffer.byteLength(text.slice(0, i), "utf8") < bytes;
}

/** True when the text holds a lone surrogate (it could not have come from valid UTF-8). */
export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/**
 * The text with "\r\n" line endings as "\n". Editors keep a buffer's line endings apart from its
 * text (Zed reads a CRLF file into "\n" lines and saves it with "\r\n" again): comparing the
 * editor's text with the disk, or with what we wrote, must not count that as a change.
 */
export function withLfEndings(text: string): string {
  return text.includes("\r\n") ? text.replace(/\r\n/g, "\n") : text;
}
