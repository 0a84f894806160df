// The human-readable report of a replay.
import { show } from "../normalise.js";
import type { ReplayResult } from "./types.js";

/** A human-readable report of one replay (PASS/FAIL line, then the first problem in full). */
export function formatReplayReport(result: ReplayResult): string {
  const secs = (result.durationMs / 1000).toFixed(1);
  if (result.ok) {
    const what = result.updated ? "UPDATED" : "PASS";
    return `${what} ${result.file} (${result.sent} sent, ${result.received} received, ${secs} s)\n`;
  }
  const lines = [`FAIL ${result.file} (agent: ${result.agentCommand.join(" ")}, ${secs} s)`];
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
    for (const m of rest.slice(0, 5)) lines.push(`    - ${m.summary}`);
  }
  if (result.stderrTail.trim() !== "") {
    const tail = result.stderrTail.trimEnd().split("\n").slice(-10);
    lines.push("  agent stderr (last lines):", ...tail.map((l) => `    | ${l}`));
  }
  return `${lines.join("\n")}\n`;
}
