// The ACP SDK's zod schemas, built on first use instead of when the agent loads (issue 30).
//
// The SDK's generated `zod.gen.js` builds every schema of the protocol at its top level: 252 for
// ACP v1, 262 for v2, ~30 ms of the agent's ~75 ms top level (measured per module, in a copy of
// the bundle that marks the end of each module's top level), while a session's start parses a
// handful of messages. esbuild cannot defer a module's top level, so this rewrites each generated
// `export const zName = <expression>;` to
// `export const zName = __lazySchema(() => <expression>);`: a zod lazy schema, which builds its
// inner schema at its first parse and forwards what unions, objects and optionals ask of it
// (propValues, optin, optout), so each parse gives the same result; wrapped in a proxy that hands
// on what only the built schema has (an object's `.shape`, read by the SDK's v2 side when it
// loads, a union's `.options`), building it then. tests/unit/lazy-acp-schemas.test.ts compares
// both over every export and every message of the recorded transcripts.
//
// The rewrite reads the generator's layout: one statement per export, indented inside, ending at
// the first line that starts in column 0 (or the export's own line) and ends with `;`; after it
// only comments until the next export, and the export one expression (not a function, not a second
// name). A file that does not read that way fails the build (a newer SDK's layout must be looked
// at, not guessed). What a lazy schema does not hand on: an enum's `_zod.values` (a record's keys,
// a discriminated union's tags read them) and what the lazy schema has itself (`instanceof`,
// `_zod.def.type`, `.unwrap()`, `.describe()`); the SDK's 2.4.0 files use none of these with a
// generated schema. The test runs in `npm test`, so a newer SDK's files are compared before it lands.

/** Put in each rewritten file after its zod import. */
const LAZY_SCHEMA = `function __lazySchema(build) {
  return new Proxy(z.lazy(build), {
    get(lazy, key, receiver) {
      if (key in lazy) return Reflect.get(lazy, key, receiver);
      const built = lazy._zod.innerType;
      const value = built[key];
      return typeof value === "function" ? value.bind(built) : value;
    },
  });
}
`;

const EXPORT = /^export const (z\w+) = /gm;
/** After an expression's closing `;`: only comments and whitespace up to the next export. */
const ONLY_COMMENTS = /^(?:\s|\/\*[\s\S]*?\*\/|\/\/[^\n]*)*$/;

/** Where the statement starting `rest` ends: its `;`, or -1. */
function statementEnd(rest) {
  let lineStart = 0;
  while (lineStart < rest.length) {
    const newline = rest.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? rest.length : newline;
    const line = rest.slice(lineStart, lineEnd);
    if ((lineStart === 0 || !/^\s/.test(line)) && line.trimEnd().endsWith(";"))
      return lineStart + line.trimEnd().length - 1;
    lineStart = lineEnd + 1;
  }
  return -1;
}

/**
 * `source` (a generated zod.gen.js) with each exported schema built on first use; throws when the
 * file does not have the generator's layout. `z` must be the file's zod namespace import.
 */
export function lazifyZodSchemas(source, file = "zod.gen.js") {
  const zod = /^import \* as z from "zod\/v4";\n/m.exec(source);
  if (!zod) throw new Error(`${file}: no \`import * as z from "zod/v4"\` to build lazy schemas with`);
  const heads = [...source.matchAll(EXPORT)];
  if (heads.length === 0) throw new Error(`${file}: no generated \`export const z...\` schemas found`);
  const exportsInFile = source.match(/^export /gm)?.length ?? 0;
  if (exportsInFile !== heads.length)
    throw new Error(`${file}: ${exportsInFile - heads.length} export(s) not of the form \`export const zName = ...;\``);
  const afterImport = zod.index + zod[0].length;
  if (afterImport > heads[0].index) throw new Error(`${file}: zod is imported after the first schema`);
  let out = source.slice(0, afterImport) + LAZY_SCHEMA + source.slice(afterImport, heads[0].index);
  heads.forEach((head, i) => {
    const start = head.index + head[0].length;
    const next = i + 1 < heads.length ? heads[i + 1].index : source.length;
    const rest = source.slice(start, next);
    const end = statementEnd(rest);
    if (end < 0 || !ONLY_COMMENTS.test(rest.slice(end + 1)))
      throw new Error(`${file}: ${head[1]} does not end where the generator ends a schema`);
    // Built lazily, a function would be called as a schema, and a second name in the statement
    // would be read before it is declared: neither is what the generator writes.
    if (/^\s*(?:\(|function\b|async\b)/.test(rest) || /,\s*[A-Za-z_$][\w$]*\s*=(?![=>])/.test(rest.slice(0, end))) {
      throw new Error(`${file}: ${head[1]} is not one schema expression`);
    }
    out += `export const ${head[1]} = __lazySchema(() => ${rest.slice(0, end)});${rest.slice(end + 1)}`;
  });
  return out;
}

/**
 * The esbuild plugin: the generated schemas of ACP v1 and v2 (each with its unstable methods, the
 * ones the agent imports), rewritten as above.
 */
export const lazyAcpSchemas = {
  name: "lazy-acp-schemas",
  setup(b) {
    b.onLoad(
      { filter: /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v[12][\\/]unstable[\\/]schema[\\/]zod\.gen\.js$/ },
      async (args) => {
        const { readFile } = await import("node:fs/promises");
        return { contents: lazifyZodSchemas(await readFile(args.path, "utf8"), args.path), loader: "js" };
      },
    );
  },
};
