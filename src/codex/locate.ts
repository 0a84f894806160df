// Finds the codex executable. Order: CODEX_PATH, then the native binary shipped in
// the platform package of the installed @openai/codex (spawning it directly starts
// ~80 ms sooner than the Node launcher), then the launcher itself. The host (platform,
// architecture, files) is a parameter, so each platform's layout is tested anywhere.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { isBatchFile, pathsOf, type Platform } from "../platform/index.js";

export type CodexCommand = {
  file: string;
  args: string[];
  via: "env" | "native" | "launcher";
  /** A batch file (Windows .cmd / .bat): run through cmd.exe (src/codex/spawn.ts codexLaunch). */
  batch?: true;
};

/** What locating codex reads of the host. */
export type LocateHost = {
  platform: Platform;
  arch: string;
  /** This Node, which runs the launcher. */
  execPath: string;
  exists(p: string): boolean;
  /** require.resolve of `spec` from this module, or from the file `from`. */
  resolve(spec: string, from?: string): string;
};

function thisHost(): LocateHost {
  const here = createRequire(import.meta.url);
  return {
    platform: process.platform,
    arch: process.arch,
    execPath: process.execPath,
    exists: existsSync,
    resolve: (spec, from) => (from === undefined ? here : createRequire(from)).resolve(spec),
  };
}

const TARGETS: Record<string, { pkg: string; triple: string }> = {
  "linux-x64": { pkg: "@openai/codex-linux-x64", triple: "x86_64-unknown-linux-musl" },
  "linux-arm64": { pkg: "@openai/codex-linux-arm64", triple: "aarch64-unknown-linux-musl" },
  "darwin-x64": { pkg: "@openai/codex-darwin-x64", triple: "x86_64-apple-darwin" },
  "darwin-arm64": { pkg: "@openai/codex-darwin-arm64", triple: "aarch64-apple-darwin" },
  "win32-x64": { pkg: "@openai/codex-win32-x64", triple: "x86_64-pc-windows-msvc" },
  "win32-arm64": { pkg: "@openai/codex-win32-arm64", triple: "aarch64-pc-windows-msvc" },
};

export function locateCodex(env: NodeJS.ProcessEnv = process.env, host: LocateHost = thisHost()): CodexCommand {
  const paths = pathsOf(host.platform);
  const fromEnv = env.CODEX_PATH;
  if (fromEnv) {
    if (!paths.isAbsolute(fromEnv)) throw new Error(`CODEX_PATH must be an absolute path: ${fromEnv}`);
    if (!host.exists(fromEnv)) throw new Error(`CODEX_PATH does not exist: ${fromEnv}`);
    if (host.platform === "win32" && isBatchFile(fromEnv)) return batchCodex(fromEnv, host);
    return { file: fromEnv, args: [], via: "env" };
  }
  let launcherPkg: string;
  try {
    launcherPkg = host.resolve("@openai/codex/package.json");
  } catch {
    throw new Error("Cannot find the codex CLI: install @openai/codex or set CODEX_PATH to the codex binary");
  }
  const target = TARGETS[`${host.platform}-${host.arch}`];
  if (target) {
    try {
      const platformDir = paths.dirname(host.resolve(`${target.pkg}/package.json`, launcherPkg));
      const exe = host.platform === "win32" ? "codex.exe" : "codex";
      const native = paths.join(platformDir, "vendor", target.triple, "bin", exe);
      if (host.exists(native)) return { file: native, args: [], via: "native" };
    } catch {
      // Platform package absent (e.g. optional deps skipped): fall back to the launcher.
    }
  }
  const launcher = paths.join(paths.dirname(launcherPkg), "bin", "codex.js");
  if (!host.exists(launcher)) throw new Error(`The @openai/codex launcher is missing: ${launcher}`);
  return { file: host.execPath, args: [launcher], via: "launcher" };
}

/**
 * A .cmd or .bat CODEX_PATH. npm's shim (`codex.cmd` in the global prefix beside node_modules, or
 * in a project's node_modules\.bin) only runs @openai/codex's launcher with node: that is run
 * directly with this Node, so no shell is involved. Any other batch file can only run through
 * cmd.exe (`batch`).
 */
function batchCodex(file: string, host: LocateHost): CodexCommand {
  const paths = pathsOf("win32");
  const dir = paths.dirname(file);
  const packages = paths.basename(dir).toLowerCase() === ".bin" ? paths.dirname(dir) : paths.join(dir, "node_modules");
  const launcher = paths.join(packages, "@openai", "codex", "bin", "codex.js");
  if (host.exists(launcher)) return { file: host.execPath, args: [launcher], via: "env" };
  return { file, args: [], via: "env", batch: true };
}
