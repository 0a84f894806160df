// Every file a comment or a doc names exists (issue 51): a comment that names where code lives
// sends its reader there, and a file that moved leaves the comment pointing at nothing.
// - Comments in src/, scripts/, tools/ and tests/ (found by TypeScript's own parser, so a `//`
//   in a string or a regular expression is no comment): a path from the repository's root
//   (`src/core/agent.ts`, `tests/e2e/`, `docs/edits.md`) exists; a source file named by its folder
//   or its name alone (`core/prompt.ts`, `app.ts`) is a file of the repository.
// - README.md, CONTRIBUTING.md and docs/*.md: every path from the root exists, and every relative
//   link resolves from the document's folder.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CODE_FOLDERS = ["src", "scripts", "tools", "tests"];

const TOP = "(?:src|tests|scripts|tools|docs|contracts|registry|\\.specify)\\/";
/** A path from the repository's root. */
const ROOTED = new RegExp(`(?<![\\w.@/-])(${TOP}[\\w.@/-]*[\\w/])`, "g");
/** A source file named by its folder and name, or its name alone (as code names it: `.js` for a `.ts` file). */
const NAMED = /(?<![\w.@/-])((?:\.{1,2}\/)*[A-Za-z_][\w.-]*(?:\/[\w.-]+)*\.(?:ts|mjs|cjs|js))(?![\w/])/g;
/** Names that look like paths and are not: MCP's method names, and a file of a dependency (the ACP SDK's zod.gen.js). */
const NOT_OURS = new Set(["tools/list", "tools/call", "zod.gen.js"]);

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out;
}

const rel = (f: string): string => path.relative(ROOT, f).split(path.sep).join("/");
const repoFiles = CODE_FOLDERS.flatMap((d) => filesUnder(path.join(ROOT, d))).map(rel);

/** Every comment of a source file, each once (every comment is the leading trivia of some token). */
function commentsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const kind = file.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Set<number>();
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      out.push(text.slice(range.pos, range.end));
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return out;
}

const exists = (p: string): boolean => fs.existsSync(path.join(ROOT, p));

/** The paths from the root that `text` names and that do not exist. */
function missingRooted(text: string): string[] {
  return [...text.matchAll(ROOTED)].map((m) => m[1]!).filter((p) => !NOT_OURS.has(p) && !exists(p.replace(/\/$/, "")));
}

/** The source files `text` names by folder or name that are no file of the repository (`from`: the naming file's folder). */
function missingNamed(text: string, from: string): string[] {
  return [...text.matchAll(NAMED)]
    .map((m) => m[1]!)
    .filter((p) => {
      // A path from the root is checked as such.
      if (NOT_OURS.has(p) || new RegExp(`^${TOP}`).test(p)) return false;
      // Build output (dist/ exists once built) names no source.
      if (/(^|\/)dist\//.test(p)) return false;
      if (fs.existsSync(path.resolve(from, p))) return false;
      const tail = p.replace(/^(\.{1,2}\/)+/, "");
      const forms = [tail, tail.replace(/\.js$/, ".ts")];
      return !repoFiles.some((f) => forms.some((t) => f === t || f.endsWith(`/${t}`)));
    });
}

describe("paths named in comments", () => {
  const sources = CODE_FOLDERS.flatMap((d) => filesUnder(path.join(ROOT, d)))
    .filter((f) => /\.(ts|mjs|cjs|js)$/.test(f))
    // Generated from Codex's schema: its comments are Codex's.
    .filter((f) => !rel(f).startsWith("src/codex/generated/"));

  it("name files and folders that exist", () => {
    const missing = sources.flatMap((f) =>
      commentsOf(f).flatMap((c) =>
        [...missingRooted(c), ...missingNamed(c, path.dirname(f))].map((p) => `${rel(f)}: ${p}`),
      ),
    );
    expect(missing).toEqual([]);
  });
});

describe("paths named in the docs", () => {
  const docs = [
    "README.md",
    "CONTRIBUTING.md",
    ...fs
      .readdirSync(path.join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ].filter(exists);

  it("name files and folders that exist, and their links resolve", () => {
    const missing = docs.flatMap((doc) => {
      const text = fs.readFileSync(path.join(ROOT, doc), "utf8");
      const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((l) => !/^[a-z]+:/.test(l) && !fs.existsSync(path.resolve(ROOT, path.dirname(doc), l)));
      return [...missingRooted(text), ...links].map((p) => `${doc}: ${p}`);
    });
    expect(missing).toEqual([]);
  });
});
