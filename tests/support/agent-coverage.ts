// Line coverage of the built agent as the tests run it. The global setup points NODE_V8_COVERAGE at
// a fresh directory; every process the tests start inherits it, and each Node process writes its
// V8 block counts there when it exits. At the end of the run the counts of the bundle (dist/*.js)
// are summed over all processes and mapped through its source maps back to src/*.ts.
//
// Why monocart-coverage-reports maps them, not c8 / v8-to-istanbul: the bundle is minified
// (scripts/build.mjs), a few lines of up to 70,000 characters each, and v8-to-istanbul maps a
// range only when both of its ends land in the same source file: on this bundle it reported
// nearly every src/ file at 100%. monocart maps each byte range through the source map on its own.
import { mergeProcessCovs, type ProcessCov, type ScriptCov } from "@bcoe/v8-coverage";
import { existsSync, mkdtempSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CoverageReport, type CoverageResults, type V8CoverageEntry } from "monocart-coverage-reports";

const REPO = path.resolve(import.meta.dirname, "../..");
const DIST = path.join(REPO, "dist");
const DIST_URL = `${pathToFileURL(DIST).href}/`;
/** Processes' counts summed at once: memory against time (one at a time merges three times slower). */
const MERGE_BATCH = 20;
export const SUMMARY_FILE = path.join(REPO, "coverage", "coverage-summary.json");

/** What the figures count: the agent's own sources, not Codex's generated protocol types. */
const counted = (sourcePath: string): boolean =>
  sourcePath.startsWith("src/") && !sourcePath.startsWith("src/codex/generated/");

/**
 * Makes every process started from here on write V8 coverage into a fresh directory (its path is
 * returned); undefined when CCA_COVERAGE=0 turns coverage off. Set before the test workers start,
 * so they pass it on to every child; Node reads it at start-up, so this process itself is not measured.
 */
export function startAgentCoverage(): string | undefined {
  if (process.env.CCA_COVERAGE === "0") return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), "cca-agent-coverage-"));
  process.env.NODE_V8_COVERAGE = dir;
  return dir;
}

/**
 * Prints the per-file line coverage of src/ (through the built agent) and writes SUMMARY_FILE,
 * then removes `dir`. Never throws: coverage that cannot be computed is reported with the reason,
 * and the test run's result stays the tests' own.
 */
export async function reportAgentCoverage(dir: string): Promise<void> {
  const started = Date.now();
  try {
    // A summary left from an earlier run must not pass for this one's.
    await rm(SUMMARY_FILE, { force: true });
    const { merged, agentProcesses, unreadable } = await readAgentCoverage(dir);
    if (agentProcesses === 0) {
      console.log("\nAgent line coverage: not computed (no test ran dist/index.js to its exit).");
      return;
    }
    console.log("\nLine coverage of src/ in the built agent (dist/, as the tests ran it):");
    const results = await mapToSources(await withSourcesAndMaps(merged), path.join(dir, "report"));
    if (!results) throw new Error("monocart-coverage-reports returned no results");
    const skipped = unreadable > 0 ? `; ${unreadable} unreadable coverage file(s) skipped` : "";
    await writeSummary(results);
    console.log(
      `Agent line coverage: ${percent(results.summary.lines)} of src/ lines, from ${agentProcesses} agent process${agentProcesses === 1 ? "" : "es"} (${path.relative(REPO, SUMMARY_FILE)}; ${((Date.now() - started) / 1000).toFixed(1)} s${skipped}).`,
    );
  } catch (err) {
    console.log(`\nAgent line coverage: not computed (${err instanceof Error ? err.message : String(err)}).`);
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The counts of dist/'s scripts, summed over every process that ran them. Other processes the tests
 * start (npm, acpx, tsx children running src/ directly) write here too: their files are skipped
 * unparsed when they do not name dist/ at all, and only dist/'s scripts are kept from the rest.
 * Summed as they are read, a few files at a time: kept until the end, the counts of 300 processes
 * held 800 MB.
 */
async function readAgentCoverage(
  dir: string,
): Promise<{ merged: ScriptCov[]; agentProcesses: number; unreadable: number }> {
  let merged: ProcessCov = { result: [] };
  let pending: ProcessCov[] = [];
  let agentProcesses = 0;
  let unreadable = 0;
  for (const name of await readdir(dir)) {
    if (!name.endsWith(".json")) continue;
    const text = await readFile(path.join(dir, name), "utf8");
    if (!text.includes(DIST_URL)) continue;
    let written: ProcessCov;
    try {
      written = JSON.parse(text) as ProcessCov;
    } catch {
      // A process still exiting as the run ends (its file half-written): its counts are left out.
      unreadable++;
      continue;
    }
    const result = written.result.filter((script) => script.url.startsWith(DIST_URL));
    if (result.length === 0) continue;
    agentProcesses++;
    pending.push({ result });
    if (pending.length >= MERGE_BATCH) {
      merged = mergeProcessCovs([merged, ...pending]);
      pending = [];
    }
  }
  return { merged: mergeProcessCovs([merged, ...pending]).result, agentProcesses, unreadable };
}

/**
 * Each script with its source and source map (read from dist/, so Node's copy of the maps in every
 * coverage file is not needed), plus every chunk of dist/ no process loaded, at a count of zero: its
 * lines are as uncovered as any. Chunks whose map names no source (re-exports) are left out.
 */
async function withSourcesAndMaps(merged: ScriptCov[]): Promise<V8CoverageEntry[]> {
  const ran = new Map(merged.map((script) => [script.url, script]));
  const entries: V8CoverageEntry[] = [];
  for (const name of (await readdir(DIST)).filter((f) => f.endsWith(".js")).sort()) {
    const file = path.join(DIST, name);
    if (!existsSync(`${file}.map`)) continue;
    const sourceMap = JSON.parse(await readFile(`${file}.map`, "utf8")) as { sources?: string[] };
    if (!sourceMap.sources?.length) continue;
    const url = pathToFileURL(file).href;
    const source = await readFile(file, "utf8");
    const functions = ran.get(url)?.functions ?? [
      { functionName: "", isBlockCoverage: true, ranges: [{ startOffset: 0, endOffset: source.length, count: 0 }] },
    ];
    entries.push({ url, scriptId: url, type: "js", source, sourceMap, functions });
  }
  return entries;
}

async function mapToSources(entries: V8CoverageEntry[], outputDir: string): Promise<CoverageResults | undefined> {
  const report = new CoverageReport({
    outputDir,
    baseDir: REPO,
    logging: "error",
    // Lines only (the figure asked of it), so the table fits a terminal.
    reports: [["console-details", { metrics: ["lines"], maxCols: 40 }]],
    sourceFilter: counted,
    cleanCache: true,
  });
  await report.add(entries);
  return report.generate();
}

const percent = (m: { pct: number | "" }): string => (m.pct === "" ? "n/a" : `${m.pct.toFixed(2)}%`);

/** The table's figures, machine-readable (the shape of istanbul's json-summary, lines only). */
async function writeSummary(results: CoverageResults): Promise<void> {
  const lines = (m: CoverageResults["summary"]["lines"]) => ({
    total: m.total,
    covered: m.covered,
    pct: m.pct === "" ? 100 : m.pct,
  });
  const files = Object.fromEntries(
    [...results.files]
      .sort((a, b) => a.sourcePath.localeCompare(b.sourcePath))
      .map((f) => [f.sourcePath, { lines: lines(f.summary.lines) }]),
  );
  await mkdir(path.dirname(SUMMARY_FILE), { recursive: true });
  await writeFile(
    SUMMARY_FILE,
    `${JSON.stringify({ total: { lines: lines(results.summary.lines) }, ...files }, null, 2)}\n`,
  );
}
