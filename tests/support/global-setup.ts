// Builds dist/ once per test run: end-to-end tests spawn the bundled bin exactly as an editor would.
// CCA_SKIP_BUILD=1 reuses an existing dist/ (quick local iterations).
import { execFileSync } from "node:child_process";

export default function setup(): void {
  if (process.env.CCA_SKIP_BUILD === "1") return;
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
