// The layout rules of the constitution and docs/architecture.md, checked on the source: small
// files, no import cycles, one line splitter, no hidden async context, few casts in the pure bridge.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = path.join(ROOT, "src");
/** The tools beside the agent (transcript runner, fake model): the same rules, and never imported by the agent. */
const TOOLS = path.join(ROOT, "tools");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "generated") out.push(...sourceFiles(full));
    } else if (e.name.endsWith(".ts")) out.push(full);
  }
  return out;
}
const files = [...sourceFiles(SRC), ...sourceFiles(TOOLS)];
const text = new Map(files.map((f) => [f, fs.readFileSync(f, "utf8")]));
const rel = (f: string): string => path.relative(ROOT, f);

/**
 * Relative imports (type-only ones too: a cycle of types is still a knot in the design); with
 * `lazy: false`, the static ones alone (not `import()`).
 */
function importsOf(file: string, { lazy = true } = {}): string[] {
  const out: string[] = [];
  for (const m of (text.get(file) ?? "").matchAll(
    /(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"|import\("(\.{1,2}\/[^"]+)"\)/g,
  )) {
    if (m[2] !== undefined && !lazy) continue;
    const spec = (m[1] ?? m[2])!;
    const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts"));
    if (text.has(target)) out.push(target);
  }
  return out;
}

describe("source layout", () => {
  it("the agent never imports the tools (they are bundled apart: tests/e2e/bundle.test.ts)", () => {
    const reaching = files
      .filter((f) => f.startsWith(SRC))
      .flatMap((f) =>
        importsOf(f)
          .filter((g) => g.startsWith(TOOLS))
          .map((g) => `${rel(f)} -> ${rel(g)}`),
      );
    expect(reaching).toEqual([]);
  });

  it("no file under src/ or tools/ (generated types aside) is over 400 lines", () => {
    const big = files.filter((f) => (text.get(f) ?? "").split("\n").length > 400).map(rel);
    expect(big).toEqual([]);
  });

  it("no folder holds more than 15 source files (a folder is one concern, small enough to read as one)", () => {
    const perFolder = new Map<string, number>();
    for (const f of files) perFolder.set(path.dirname(rel(f)), (perFolder.get(path.dirname(rel(f))) ?? 0) + 1);
    expect([...perFolder].filter(([, n]) => n > 15).map(([dir, n]) => `${dir}: ${n}`)).toEqual([]);
  });

  it("no feature imports another, and the core imports no feature: each reaches the core, the translator and Codex", () => {
    // A feature: one module or folder under src/features/, and stored sessions, sign-in and the
    // editor-files feature (its top files; the libraries under it, such as access/ and patch/, are
    // shared: the core reads SessionMode there, directories its whole-disk rule).
    const featureOf = (f: string): string | undefined => {
      const r = rel(f);
      // src/features/index.ts lists the features for the composition root: it is none of them.
      if (r === "src/features/index.ts") return undefined;
      const inFeatures = /^src\/features\/([^/.]+)/.exec(r);
      if (inFeatures) return `features/${inFeatures[1]}`;
      if (/^src\/editor-files\/[^/]+\.ts$/.test(r)) return "editor-files";
      return /^src\/(stored-sessions|sign-in)\//.exec(r)?.[1];
    };
    const crossings = files.flatMap((f) => {
      // The core is a feature of none, and imports none: only the composition root (src/app.ts) knows them all.
      const own = featureOf(f) ?? (rel(f).startsWith("src/core/") ? "core" : undefined);
      if (!own) return [];
      return importsOf(f)
        .filter((g) => featureOf(g) !== undefined && featureOf(g) !== own)
        .map((g) => `${rel(f)} -> ${rel(g)}`);
    });
    expect(crossings).toEqual([]);
  });

  it("the agent's state is written only by the core: others read it, and change it through the core's methods", () => {
    // Capabilities go through the feature API (agentCapabilities/sessionCapabilities, or
    // agent.advertise); the session table through agent.withdrawSession/restoreSession.
    const writes = [
      /\bagent\.state\.[\w.]+\s*(?:[-+*/]?=(?!=)|\+\+|--)/,
      /\.state\.(?:agentCapabilities|clientCapabilities|sessions)\b[\w.]*\s*[-+*/]?=(?!=)/,
      /\b(?:state|services)\.sessions\.(?:set|delete|clear)\(/,
      /Object\.assign\(\s*[\w.]*state\.agentCapabilities/,
    ];
    // Comments out, their lines kept (so the offenders' line numbers are the file's).
    const code = (f: string): string =>
      (text.get(f) ?? "").replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, "")).replace(/\/\/.*$/gm, "");
    const offenders = files
      .filter((f) => !rel(f).startsWith("src/core/"))
      .flatMap((f) =>
        code(f)
          .split("\n")
          .map((line, i) => ({ line, at: `${rel(f)}:${i + 1}` }))
          .filter(({ line }) => writes.some((w) => w.test(line)))
          .map(({ at }) => at),
      );
    expect(offenders).toEqual([]);
  });

  it("JSON-RPC error codes are named in one place (src/json-rpc), not written as bare numbers", () => {
    // The file tools' own codes are their contract's table (contracts/*.md), named there.
    const named = new Set(["src/json-rpc/error-codes.ts", "src/editor-files/access/errors.ts"]);
    const code = (f: string): string =>
      (text.get(f) ?? "").replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, "")).replace(/\/\/.*$/gm, "");
    const bare = files
      .filter((f) => !named.has(rel(f)))
      .flatMap((f) =>
        code(f)
          .split("\n")
          .map((line, i) => ({ line, at: `${rel(f)}:${i + 1}` }))
          .filter(({ line }) => /-32[0-9]{3}\b/.test(line))
          .map(({ at }) => at),
      );
    expect(bare).toEqual([]);
  });

  it("another top-level folder is reached through an index.ts of it (its public surface), never past one", () => {
    const topOf = (f: string): string | undefined => {
      const parts = path.relative(SRC, f).split(path.sep);
      return parts.length > 1 ? parts[0] : undefined;
    };
    // Static imports only (lazy: false): a lazy import() names its module by path on purpose (the
    // bin loads the login subcommand's module alone, not the folder's whole surface).
    // The bin is the exception: it loads only its start-up path (and, lazily, the login subcommand),
    // so those import the few modules they run by path, not their folders' whole surfaces
    // (tests/e2e/bundle.test.ts checks that the bin holds nothing else).
    const binPath = new Set(["index.ts", "sign-in/terminal-login.ts"].map((f) => path.join(SRC, f)));
    const past = files
      .filter((f) => f.startsWith(SRC) && !binPath.has(f))
      .flatMap((f) =>
        importsOf(f, { lazy: false })
          .filter(
            (g) =>
              g.startsWith(SRC) && topOf(g) !== undefined && topOf(g) !== topOf(f) && path.basename(g) !== "index.ts",
          )
          .map((g) => `${rel(f)} -> ${rel(g)}`),
      );
    expect(past).toEqual([]);
  });

  it("has no import cycles", () => {
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (f: string): void => {
      state.set(f, "open");
      stack.push(f);
      for (const g of graph.get(f) ?? []) {
        if (state.get(g) === "open") cycles.push([...stack.slice(stack.indexOf(g)), g].map(rel).join(" -> "));
        else if (!state.has(g)) visit(g);
      }
      stack.pop();
      state.set(f, "done");
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it("the bridge reads Codex's messages through their generated types: at most 5 casts, no untyped item type", () => {
    const bridge = files.filter((f) => rel(f).startsWith("src/bridge/"));
    const code = (f: string): string => (text.get(f) ?? "").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    const casts = bridge.flatMap((f) => (code(f).match(/\bas (?!const\b)[A-Za-z{([]/g) ?? []).map(() => rel(f)));
    expect(casts.length, `casts in ${casts.join(", ")}`).toBeLessThanOrEqual(5);
    expect(bridge.filter((f) => /type Item\s*=\s*\{[^}]*\}\s*&\s*Record<string, unknown>/.test(code(f)))).toEqual([]);
  });

  it("no module-level mutable state: state lives in the objects that own it (per agent, per session)", () => {
    const offenders = files.flatMap((f) =>
      (text.get(f) ?? "")
        .split("\n")
        .map((line, i) => ({ line, at: `${rel(f)}:${i + 1}` }))
        .filter(
          ({ line }) =>
            /^(export )?let\s/.test(line) ||
            (/^(export )?const \w+(: [^=]+)? = new (Map|WeakMap|Set)\b/.test(line) &&
              !/ReadonlySet|ReadonlyMap/.test(line)),
        )
        .map(({ at }) => at),
    );
    // The one allowed memo: the compiled ACP JSON schemas, one per version (immutable once built, costly to build).
    expect(offenders).toEqual(["tools/transcripts/schema.ts:45"]);
  });

  it("one line splitter, and no AsyncLocalStorage (state is passed, not hidden)", () => {
    const all = [...text.values()].join("\n");
    expect(all.match(/class LineSplitter\b/g)).toHaveLength(1);
    expect(all).not.toContain("AsyncLocalStorage");
  });
});
