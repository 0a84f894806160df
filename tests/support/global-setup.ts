// Builds dist/ once per test run: end-to-end tests spawn the bundled bin exactly as an editor would.
// CCA_SKIP_BUILD=1 reuses an existing dist/ (quick local iterations).
// Then measures the line coverage of that bundle as the tests run it (./agent-coverage.ts), printed
// after the run's summary; CCA_COVERAGE=0 leaves it out.
import { execFileSync } from "node:child_process";
import { reportAgentCoverage, startAgentCoverage } from "./agent-coverage.js";

export default function setup(): (() => Promise<void>) | undefined {
  // Vitest runs this once per project: the bundle is built by the first call only.
  if (process.env.CCA_SKIP_BUILD !== "1" && process.env.CCA_DIST_BUILT !== "1") {
    execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
    process.env.CCA_DIST_BUILT = "1";
  }
  // Vitest runs this once per project (the root one too): only the first call starts coverage and
  // reports it, and it is left alone when the caller measures coverage with its own NODE_V8_COVERAGE.
  if (process.env.NODE_V8_COVERAGE !== undefined) return undefined;
  const dir = startAgentCoverage();
  return dir === undefined ? undefined : () => reportAgentCoverage(dir);
}
