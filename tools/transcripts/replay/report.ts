// The human-readable report of a replay.
import { show } from "../normalise.js";
import type { ReplayResult } from "./types.js";

/** Problems listed by their summary after the first (shown in full). */
const MAX_LISTED = 50;

/** Lines that say what went wrong: error-ish text, or pino lines at error level and above. */
const ERROR_LINE = /\b(error|exception|panic|fatal|failed|cannot|refused)\b/i;

/**
 * The agent's stderr lines worth a reader's time: its error lines (a stack trace's frames are
 * not: "at f (file:1:2)"), and the last few lines for context; all of it when it is short.
 */
function stderrWorthShowing(tail: string): { label: string; lines: string[]; length: number } {
  const all = tail
    .trimEnd()
    .split("\n")
    .filter((l) => l.trim() !== "");
  if (all.length <= 10) return { label: "last lines", lines: all, length: all.length };
  const isError = (l: string): boolean => {
    if (/^\s+at /.test(l)) return false;
    const level = /"level":(\d+)/.exec(l);
    return level ? Number(level[1]) >= 50 : ERROR_LINE.test(l);
  };
  const errors = all.filter(isError).slice(-8);
  const last = all.slice(-3).filter((l) => !errors.includes(l));
  const lines = [...errors, ...(last.length && errors.length ? ["…"] : []), ...last];
  return { label: errors.length ? "error lines, then the last lines" : "last lines", lines, length: lines.length };
}

/** A human-readable report of one replay (PASS/FAIL line, the first problem in full, a summary of the rest). */
export function formatReplayReport(result: ReplayResult): string {
  const secs = (result.durationMs / 1000).toFixed(1);
  if (result.ok) {
    const what = result.updated ? "UPDATED" : "PASS";
    return `${what} ${result.file} (${result.sent} sent, ${result.received} received, ${secs} s)\n`;
  }
  const lines = [`FAIL ${result.file} (agent: ${result.agentCommand.join(" ")}, ${secs} s)`];
  if (result.notUpdated) lines.push(`  ${result.notUpdated}`);
  else if (result.updated) lines.push("  the file was rewritten with the live run all the same");
  const [first, ...rest] = result.mismatches;
  if (first) {
    lines.push(`  ${first.summary}`);
    if (first.detail) lines.push(...first.detail.split("\n").map((l) => `    ${l}`));
    else if (first.expected !== undefined || first.actual !== undefined) {
      lines.push(`    expected: ${show(first.expected)}`, `    actual:   ${show(first.actual)}`);
    }
  }
  if (rest.length > 0) {
    lines.push(`  ${rest.length} more problem(s):`);
    for (const m of rest.slice(0, MAX_LISTED)) lines.push(`    - ${m.summary}`);
    if (rest.length > MAX_LISTED) lines.push(`    - … and ${rest.length - MAX_LISTED} more`);
  }
  const stderr = stderrWorthShowing(result.stderrTail);
  if (stderr.length > 0) lines.push(`  agent stderr (${stderr.label}):`, ...stderr.lines.map((l) => `    | ${l}`));
  return `${lines.join("\n")}\n`;
}
