// Finds the codex executable. Order: CODEX_PATH, then the native binary shipped in
// the platform package of the installed @openai/codex (spawning it directly starts
// ~80 ms sooner than the Node launcher), then the launcher itself.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import path from "node:path";

export type CodexCommand = { file: string; args: string[]; via: "env" | "native" | "launcher" };

const TARGETS: Record<string, { pkg: string; triple: string }> = {
  "linux-x64": { pkg: "@openai/codex-linux-x64", triple: "x86_64-unknown-linux-musl" },
  "linux-arm64": { pkg: "@openai/codex-linux-arm64", triple: "aarch64-unknown-linux-musl" },
  "darwin-x64": { pkg: "@openai/codex-darwin-x64", triple: "x86_64-apple-darwin" },
  "darwin-arm64": { pkg: "@openai/codex-darwin-arm64", triple: "aarch64-apple-darwin" },
  "win32-x64": { pkg: "@openai/codex-win32-x64", triple: "x86_64-pc-windows-msvc" },
  "win32-arm64": { pkg: "@openai/codex-win32-arm64", triple: "aarch64-pc-windows-msvc" },
};

export function locateCodex(env: NodeJS.ProcessEnv = process.env): CodexCommand {
  const fromEnv = env.CODEX_PATH;
  if (fromEnv) {
    if (!path.isAbsolute(fromEnv)) throw new Error(`CODEX_PATH must be an absolute path: ${fromEnv}`);
    if (!existsSync(fromEnv)) throw new Error(`CODEX_PATH does not exist: ${fromEnv}`);
    return { file: fromEnv, args: [], via: "env" };
  }
  const require = createRequire(import.meta.url);
  let launcherPkg: string;
  try {
    launcherPkg = require.resolve("@openai/codex/package.json");
  } catch {
    throw new Error("Cannot find the codex CLI: install @openai/codex or set CODEX_PATH to the codex binary");
  }
  const target = TARGETS[`${process.platform}-${process.arch}`];
  if (target) {
    try {
      const fromLauncher = createRequire(launcherPkg);
      const platformDir = path.dirname(fromLauncher.resolve(`${target.pkg}/package.json`));
      const exe = process.platform === "win32" ? "codex.exe" : "codex";
      const native = path.join(platformDir, "vendor", target.triple, "bin", exe);
      if (existsSync(native)) return { file: native, args: [], via: "native" };
    } catch {
      // Platform package absent (e.g. optional deps skipped): fall back to the launcher.
    }
  }
  const launcher = path.join(path.dirname(launcherPkg), "bin", "codex.js");
  if (!existsSync(launcher)) throw new Error(`The @openai/codex launcher is missing: ${launcher}`);
  return { file: process.execPath, args: [launcher], via: "launcher" };
}
