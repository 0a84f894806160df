// What `npm run test:codex-latest` reports: the tests whose outcome a newer codex changes. A test
// that fails on the newer codex is run again on the pinned one; it differs only where the pinned
// codex passes it (a test failing on both is a flake or a break of ours, listed apart).
import path from "node:path";
import { z } from "zod";

export type TestOutcome = { file: string; name: string; status: string };

const vitestReport = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      assertionResults: z.array(z.object({ fullName: z.string(), status: z.string() })),
    }),
  ),
});

/** Outcomes from vitest's `--reporter=json` output, files relative to `root`. */
export function parseVitestJson(text: string, root: string): TestOutcome[] {
  const parsed = vitestReport.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(`not a vitest JSON report: ${parsed.error.issues[0]?.message ?? "unknown shape"}`);
  return parsed.data.testResults.flatMap((file) =>
    file.assertionResults.map((t) => ({
      file: path.relative(root, file.name).split(path.sep).join("/"),
      name: t.fullName,
      status: t.status,
    })),
  );
}

export type Comparison = { passed: number; differ: TestOutcome[]; failBoth: TestOutcome[] };

/** `latest`: every test on the newer codex; `pinned`: the failed ones' files again on the pinned codex. */
export function compareRuns(latest: readonly TestOutcome[], pinned: readonly TestOutcome[]): Comparison {
  const key = (t: TestOutcome): string => `${t.file}\u0000${t.name}`;
  const pinnedStatus = new Map(pinned.map((t) => [key(t), t.status]));
  const failed = latest.filter((t) => t.status === "failed");
  return {
    passed: latest.filter((t) => t.status === "passed").length,
    differ: failed.filter((t) => pinnedStatus.get(key(t)) === "passed"),
    failBoth: failed.filter((t) => pinnedStatus.get(key(t)) !== "passed"),
  };
}

export type RunInfo = { pinned: string; latest: string; files: number };

export function formatReport(info: RunInfo, result: Comparison): string {
  const lines = [`codex ${info.latest} (pinned: ${info.pinned}), ${info.files} test files: ${result.passed} passed`];
  if (result.differ.length === 0) lines.push("no test differs from the pinned codex");
  else {
    lines.push(
      `${result.differ.length} test${result.differ.length === 1 ? " differs" : "s differ"} (fail with ${info.latest}, pass with ${info.pinned}):`,
    );
    for (const t of result.differ) lines.push(`  ${t.file} > ${t.name}`);
  }
  if (result.failBoth.length > 0) {
    lines.push(`${result.failBoth.length} fails with both (a flake, or a break not caused by the codex version):`);
    for (const t of result.failBoth) lines.push(`  ${t.file} > ${t.name}`);
  }
  return lines.join("\n");
}
