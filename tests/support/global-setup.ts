// Builds dist/ once per test run: end-to-end tests spawn the bundled bin exactly as an editor would.
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
