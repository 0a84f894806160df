// Cutting text for display (a title, a command output's tail, an error quoted back) without splitting
// a character. JavaScript counts UTF-16 units, and a cut between the two halves of a surrogate pair
// (an emoji, most CJK extensions) leaves a lone surrogate: JSON.stringify writes it as "\udXXX",
// which Rust's serde_json (Zed, and Codex for what goes back to it) refuses, dropping the message.

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** The first `units` UTF-16 units of `text`, one fewer when the last would be half a pair. */
export function textHead(text: string, units: number): string {
  if (text.length <= units) return text;
  const end = Math.max(0, units);
  return text.slice(0, end > 0 && isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end);
}

/** The last `units` UTF-16 units of `text`, one fewer when the first would be half a pair. */
export function textTail(text: string, units: number): string {
  if (text.length <= units) return text;
  const start = text.length - Math.max(0, units);
  return text.slice(start < text.length && isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}
