// scripts/codex-latest: which tests a newer codex changes. The comparison of two vitest runs
// (the newer codex's, then the pinned one's for the files that failed) and its report.
import { describe, expect, it } from "vitest";
import { compareRuns, formatReport, parseVitestJson } from "../../scripts/codex-latest/compare.js";

const report = (tests: Array<[file: string, name: string, status: string]>): string =>
  JSON.stringify({
    testResults: [...new Set(tests.map(([f]) => f))].map((file) => ({
      name: `/repo/${file}`,
      assertionResults: tests.filter(([f]) => f === file).map(([, fullName, status]) => ({ fullName, status })),
    })),
  });

describe("codex-latest comparison", () => {
  it("reads vitest's JSON report as file-relative test outcomes", () => {
    const run = parseVitestJson(
      report([
        ["tests/e2e/a.test.ts", "a works", "passed"],
        ["tests/e2e/a.test.ts", "a breaks", "failed"],
      ]),
      "/repo",
    );
    expect(run).toEqual([
      { file: "tests/e2e/a.test.ts", name: "a works", status: "passed" },
      { file: "tests/e2e/a.test.ts", name: "a breaks", status: "failed" },
    ]);
  });

  it("a test that fails on the newer codex and passes on the pinned one differs; one failing on both does not", () => {
    const latest = parseVitestJson(
      report([
        ["tests/e2e/a.test.ts", "same", "passed"],
        ["tests/e2e/a.test.ts", "broken by the new codex", "failed"],
        ["tests/e2e/b.test.ts", "broken anyway", "failed"],
      ]),
      "/repo",
    );
    const pinned = parseVitestJson(
      report([
        ["tests/e2e/a.test.ts", "broken by the new codex", "passed"],
        ["tests/e2e/b.test.ts", "broken anyway", "failed"],
      ]),
      "/repo",
    );
    const result = compareRuns(latest, pinned);
    expect(result.differ.map((t) => t.name)).toEqual(["broken by the new codex"]);
    expect(result.failBoth.map((t) => t.name)).toEqual(["broken anyway"]);
    expect(result.passed).toBe(1);
    const text = formatReport({ pinned: "0.171.0", latest: "0.172.0", files: 2 }, result);
    expect(text).toContain("1 test differs");
    expect(text).toContain("tests/e2e/a.test.ts > broken by the new codex");
    expect(text).toContain("fails with both");
  });

  it("says so when nothing differs", () => {
    const result = compareRuns(parseVitestJson(report([["tests/e2e/a.test.ts", "ok", "passed"]]), "/repo"), []);
    expect(formatReport({ pinned: "0.171.0", latest: "0.172.0", files: 1 }, result)).toContain("no test differs");
  });

  it("rejects a report that is not vitest's", () => {
    expect(() => parseVitestJson('{"nope":1}', "/repo")).toThrow(/vitest JSON report/);
  });
});
