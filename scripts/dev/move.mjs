// Moves source files and rewrites every relative import that reaches them (issue 27's layout
// steps are mechanical moves: this keeps them so). Usage:
//   node scripts/dev/move.mjs [--dry-run] OLD=NEW [OLD=NEW ...]
// OLD and NEW are repository paths of files or folders (a folder moves with everything in it).
// Every relative specifier in src/, tools/, tests/ and scripts/ (`from "…"`, `import("…")`,
// `export … from "…"`) is resolved against the importing file's old place, mapped through the
// moves, and written relative to the file's new place. Repository-relative strings that name a
// moved file (such as "tools/transcripts/cli.ts") are mapped too. Then `git mv` does the moves.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const dryRun = args.includes("--dry-run");
const moves = args
  .filter((a) => a !== "--dry-run")
  .map((a) => {
    const [from, to] = a.split("=");
    if (!from || !to) throw new Error(`not OLD=NEW: ${a}`);
    return { from: path.normalize(from), to: path.normalize(to) };
  });
if (moves.length === 0) throw new Error("nothing to move");
for (const { from } of moves) if (!existsSync(path.join(root, from))) throw new Error(`no such path: ${from}`);

/** Where a repository path ends up after the moves (itself when nothing moves it). */
function moved(rel) {
  for (const { from, to } of moves) {
    if (rel === from) return to;
    if (rel.startsWith(`${from}/`)) return path.join(to, rel.slice(from.length + 1));
  }
  return rel;
}

function* sourceFiles(dir) {
  const abs = path.join(root, dir);
  if (!existsSync(abs)) return;
  for (const name of readdirSync(abs)) {
    const rel = path.join(dir, name);
    if (name === "node_modules" || name === "generated" || name.startsWith(".")) continue;
    if (statSync(path.join(root, rel)).isDirectory()) yield* sourceFiles(rel);
    else if (/\.(ts|mts|mjs|js)$/.test(name)) yield rel;
  }
}

const SPECIFIER = /((?:from|import)\s*\(?\s*")(\.{1,2}\/[^"]+)(")/g;
const REPO_PATH = /"((?:src|tools|tests|scripts)\/[^"\s]+\.(?:ts|mjs|js))"/g;
let changedFiles = 0;
for (const file of ["src", "tools", "tests", "scripts"].flatMap((d) => [...sourceFiles(d)])) {
  const text = readFileSync(path.join(root, file), "utf8");
  const newFile = moved(file);
  const rewritten = text
    .replace(SPECIFIER, (whole, head, spec, tail) => {
      // The target as the import names it (a .js specifier names the .ts source).
      const target = path.normalize(path.join(path.dirname(file), spec));
      const dest = target.endsWith(".js")
        ? moved(target.replace(/\.js$/, ".ts")).replace(/\.ts$/, ".js")
        : moved(target);
      if (dest === target && newFile === file) return whole;
      let next = path.relative(path.dirname(newFile), dest);
      if (!next.startsWith(".")) next = `./${next}`;
      return `${head}${next}${tail}`;
    })
    .replace(REPO_PATH, (whole, rel) => (moved(rel) === rel ? whole : `"${moved(rel)}"`));
  if (rewritten !== text) {
    changedFiles++;
    if (dryRun) process.stdout.write(`rewrite ${file}${newFile !== file ? ` (-> ${newFile})` : ""}\n`);
    else writeFileSync(path.join(root, file), rewritten);
  }
}
for (const { from, to } of moves) {
  if (dryRun) process.stdout.write(`git mv ${from} ${to}\n`);
  else {
    execFileSync("mkdir", ["-p", path.dirname(path.join(root, to))]);
    execFileSync("git", ["mv", from, to], { cwd: root, stdio: "inherit" });
  }
}
process.stdout.write(`${dryRun ? "would rewrite" : "rewrote"} ${changedFiles} files, ${moves.length} moves\n`);
