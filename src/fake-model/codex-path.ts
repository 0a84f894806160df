// Locates the native codex binary shipped by the pinned @openai/codex dependency. Small on
// purpose: the product's own locator (CODEX_PATH etc.) lives in src/codex/.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import path from "node:path";

const TARGETS: Record<string, { pkg: string; triple: string }> = {
  "linux-x64": { pkg: "@openai/codex-linux-x64", triple: "x86_64-unknown-linux-musl" },
  "linux-arm64": { pkg: "@openai/codex-linux-arm64", triple: "aarch64-unknown-linux-musl" },
  "darwin-x64": { pkg: "@openai/codex-darwin-x64", triple: "x86_64-apple-darwin" },
  "darwin-arm64": { pkg: "@openai/codex-darwin-arm64", triple: "aarch64-apple-darwin" },
  "win32-x64": { pkg: "@openai/codex-win32-x64", triple: "x86_64-pc-windows-msvc" },
  "win32-arm64": { pkg: "@openai/codex-win32-arm64", triple: "aarch64-pc-windows-msvc" },
};

let cached: string | undefined;

/** Absolute path of the native codex binary of the installed @openai/codex package. */
export function defaultCodexPath(): string {
  if (cached !== undefined) return cached;
  const require = createRequire(import.meta.url);
  const codexPkgJson = require.resolve("@openai/codex/package.json");
  const codexDir = path.dirname(codexPkgJson);
  const target = TARGETS[`${process.platform}-${process.arch}`];
  const exe = process.platform === "win32" ? "codex.exe" : "codex";
  if (target) {
    try {
      const fromCodex = createRequire(codexPkgJson);
      const platformDir = path.dirname(fromCodex.resolve(`${target.pkg}/package.json`));
      const bin = path.join(platformDir, "vendor", target.triple, "bin", exe);
      if (existsSync(bin)) return (cached = bin);
    } catch {
      // fall through to the launcher
    }
  }
  // Fallback: the Node launcher script (slower start, same behaviour).
  return (cached = path.join(codexDir, "bin", "codex.js"));
}
