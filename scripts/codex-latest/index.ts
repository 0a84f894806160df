// npm run test:codex-latest [-- --version X] [-- --ci]: the end-to-end suite against a codex other
// than the pinned one (default: the registry's latest @openai/codex), and which tests that changes.
// The newer codex is installed into a cache folder and reaches the agent through CODEX_PATH (the
// way a user points the agent at their own codex); the files with failures are then run again on
// the pinned codex, so the report separates what the version changes from flakes.
// --ci runs a smoke subset that fits CI's time and never fails the build (exit 0): it informs.
import { execFileSync, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { locateCodex } from "../../src/codex/index.js";
import { compareRuns, formatReport, parseVitestJson, type TestOutcome } from "./compare.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** What CI runs: a turn, approvals, the editor's file tools, edits, command cards, sessions, plan mode, /goal, v2. */
const CI_FILES = [
  "session",
  "approvals",
  "file-tools",
  "apply-patch",
  "command-cards",
  "lifecycle",
  "plan-mode",
  "goal",
  "protocol-v2",
  "modes",
].map((n) => `tests/e2e/${n}.test.ts`);
/** End-to-end files that do not run the agent's codex (the package, the bundle, the peers' transcripts) or only measure memory. */
const NOT_CODEX = new Set(
  ["package", "bundle", "peer-transcripts", "fuzz", "load", "cli-help"].map((n) => `tests/e2e/${n}.test.ts`),
);

type Options = { version?: string; ci: boolean; force: boolean };

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { ci: false, force: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--ci") options.ci = true;
    else if (arg === "--force") options.force = true;
    else if (arg === "--version" && argv[i + 1]) options.version = argv[++i];
    else throw new Error(`unknown argument ${arg}; usage: test:codex-latest [--version X] [--ci] [--force]`);
  }
  return options;
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function pinnedVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(path.join(ROOT, "node_modules/@openai/codex/package.json"), "utf8"));
  return typeof pkg === "object" && pkg !== null && "version" in pkg ? String(pkg.version) : "unknown";
}

/** The codex binary of `version`, installed once into a cache folder. */
function installCodex(version: string): string {
  const dir = path.join(ROOT, "node_modules/.cache/codex-versions", version);
  if (!existsSync(path.join(dir, "node_modules/@openai/codex/package.json"))) {
    mkdirSync(dir, { recursive: true });
    try {
      execFileSync(
        npm,
        [
          "install",
          "--prefix",
          dir,
          "--no-save",
          "--no-package-lock",
          "--no-audit",
          "--no-fund",
          `@openai/codex@${version}`,
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
    } catch {
      throw new Error(`could not install @openai/codex@${version} (no such version, or the registry is out of reach)`);
    }
  }
  const from = createRequire(path.join(dir, "package.json"));
  const command = locateCodex(
    {},
    {
      platform: process.platform,
      arch: process.arch,
      execPath: process.execPath,
      exists: existsSync,
      resolve: (spec, at) => (at === undefined ? from : createRequire(at)).resolve(spec),
    },
  );
  if (command.via !== "native") throw new Error(`no native codex binary in ${dir}`);
  return command.file;
}

/** Runs `files` under vitest (dist/ already built) and returns each test's outcome. */
function runTests(files: readonly string[], codexPath: string | undefined): TestOutcome[] {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), "codex-latest-")), "report.json");
  const env: NodeJS.ProcessEnv = { ...process.env, CCA_SKIP_BUILD: "1", CCA_COVERAGE: "0" };
  if (codexPath) env.CODEX_PATH = codexPath;
  else delete env.CODEX_PATH;
  spawnSync(
    process.execPath,
    [path.join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--reporter=json", `--outputFile=${out}`, ...files],
    { cwd: ROOT, env, stdio: ["ignore", "ignore", "inherit"] },
  );
  if (!existsSync(out)) throw new Error("vitest wrote no report");
  return parseVitestJson(readFileSync(out, "utf8"), ROOT);
}

function main(): number {
  const options = parseArgs(process.argv.slice(2));
  const pinned = pinnedVersion();
  let version = options.version;
  if (!version) {
    try {
      version = execFileSync(npm, ["view", "@openai/codex@latest", "version"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch (err) {
      process.stderr.write(
        `test:codex-latest: skipped, the npm registry did not answer (${String(err).split("\n")[0]})\n`,
      );
      return 0;
    }
  }
  if (version === pinned && !options.force) {
    process.stdout.write(
      `test:codex-latest: the latest @openai/codex is ${version}, the pinned version: nothing to compare (--version X or --force to run anyway)\n`,
    );
    return 0;
  }
  const codexPath = installCodex(version);
  const files = options.ci
    ? CI_FILES
    : readdirSync(path.join(ROOT, "tests/e2e"))
        .map((f) => `tests/e2e/${f}`)
        .filter((f) => f.endsWith(".test.ts") && !NOT_CODEX.has(f))
        .sort();
  execFileSync(process.execPath, [path.join(ROOT, "scripts/build.mjs")], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  process.stdout.write(`test:codex-latest: ${files.length} test files on codex ${version} (${codexPath})\n`);
  const latest = runTests(files, codexPath);
  const failedFiles = [...new Set(latest.filter((t) => t.status === "failed").map((t) => t.file))];
  const again = failedFiles.length > 0 ? runTests(failedFiles, undefined) : [];
  const result = compareRuns(latest, again);
  process.stdout.write(`${formatReport({ pinned, latest: version, files: files.length }, result)}\n`);
  return options.ci || result.differ.length === 0 ? 0 : 1;
}

try {
  process.exitCode = main();
} catch (err) {
  process.stderr.write(`test:codex-latest: ${err instanceof Error ? err.message : String(err)}\n`);
  // In CI the comparison informs and never fails the build.
  process.exitCode = process.argv.includes("--ci") ? 0 : 1;
}
