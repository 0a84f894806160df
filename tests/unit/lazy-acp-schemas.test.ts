// The build's rewrite of the ACP SDK's generated zod schemas into lazy ones (issue 30,
// scripts/lazy-acp-schemas.mjs): every exported schema of every zod.gen.js the SDK ships must
// parse exactly as the SDK's own does, result and errors alike. Both sides are bundled by esbuild
// as the agent is, one with the rewrite and one without, and compared over every message of the
// recorded transcripts (each value nested in them too) and values made to fail or to be salvaged.
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { build, type Plugin } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lazifyZodSchemas, lazyAcpSchemas } from "../../scripts/lazy-acp-schemas.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SDK = path.join(ROOT, "node_modules/@agentclientprotocol/sdk/dist");
/** The generated schemas the agent bundles (ACP v1 and v2, each with its unstable methods), all the plugin rewrites. */
const GENERATED = ["v1/unstable", "v2/unstable"].map((dir) => path.join(SDK, dir, "schema/zod.gen.js"));

type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } } };
type SchemaModule = Record<string, Schema>;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cca-lazy-schemas-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `file` bundled as the agent's build bundles it (zod inside), with or without the rewrite. */
async function bundled(file: string, plugins: Plugin[], name: string): Promise<SchemaModule> {
  const out = await build({
    entryPoints: [file],
    bundle: true,
    platform: "node",
    format: "esm",
    write: false,
    plugins,
    logLevel: "silent",
  });
  const target = path.join(dir, `${name}.mjs`);
  await writeFile(target, out.outputFiles[0]!.text);
  return (await import(pathToFileURL(target).href)) as SchemaModule;
}

/**
 * Each message's params and result in the recorded transcripts, and every object and array nested
 * in them (the texts and numbers in them are hundreds of strings a few made-up values stand for).
 */
function transcriptValues(): unknown[] {
  const seen = new Map<string, unknown>();
  const visit = (value: unknown): void => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return;
    seen.set(key, value);
    if (value && typeof value === "object") for (const inner of Object.values(value)) visit(inner);
  };
  const folder = path.join(ROOT, "tests/transcripts");
  const files = [...readdirSync(folder), ...readdirSync(path.join(folder, "peers")).map((f) => `peers/${f}`)].filter(
    (f) => f.endsWith(".jsonl"),
  );
  for (const file of files) {
    for (const line of readFileSync(path.join(folder, file), "utf8").split("\n").filter(Boolean)) {
      const record = JSON.parse(line) as { msg?: { params?: unknown; result?: unknown; error?: unknown } };
      for (const part of [record.msg?.params, record.msg?.result, record.msg?.error])
        if (part !== undefined) visit(part);
    }
  }
  return [...seen.values()].filter((value) => value !== null && typeof value === "object");
}

/** Values made to take the schemas' other roads: wrong types, unknown tags, fields to salvage. */
const MADE_UP: unknown[] = [
  null,
  undefined,
  0,
  -1,
  1.5,
  2 ** 53 + 2,
  "",
  "x",
  true,
  [],
  {},
  [null],
  { type: 7 },
  { type: "text", text: "a", _meta: 5, annotations: "bad" },
  { type: "never-heard-of", extra: { kept: true } },
  { sessionId: 1 },
  { sessionId: "s", prompt: "not a list" },
  { sessionId: "s", prompt: [{ type: "text" }] },
  {
    sessionId: "s",
    cwd: "/w",
    mcpServers: [
      { name: "a", command: "b", args: [], env: [] },
      { type: "http", name: "h", url: "u", headers: [] },
    ],
  },
  { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: "yes" }, terminal: null } },
  { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "t" } },
  { sessionUpdate: "tool_call", toolCallId: "t", title: "x", status: "weird", kind: 3 },
  { outcome: { outcome: "selected", optionId: "o" } },
  { outcome: { outcome: "cancelled" } },
  { outcome: "selected" },
  { stopReason: "end_turn" },
  { stopReason: "something-new" },
  { code: -32602, message: "m", data: { x: 1 } },
  { action: "accept", content: { a: 1 } },
  { mode: "url", url: "u", elicitationId: "e" },
  { line: -1, limit: 4294967296 },
];

describe("the ACP SDK's schemas, built on first use", () => {
  const samples = [...transcriptValues(), ...MADE_UP];

  /** Both bundles of a file, made once for the parts that compare them. */
  const pairs = new Map<string, Promise<{ own: SchemaModule; lazy: SchemaModule }>>();
  const pairOf = (name: string, file: string) => {
    let pair = pairs.get(file);
    if (!pair) {
      pair = Promise.all([
        bundled(file, [], `${name.replaceAll("/", "-")}-own`),
        bundled(file, [lazyAcpSchemas], `${name.replaceAll("/", "-")}-lazy`),
      ]).then(([own, lazy]) => ({ own, lazy }));
      pairs.set(file, pair);
    }
    return pair;
  };

  it.each(GENERATED.map((file) => [path.relative(SDK, file), file]))(
    "%s: the same schemas, each read as the SDK's own",
    async (name, file) => {
      const { own, lazy } = await pairOf(name, file);
      expect(Object.keys(lazy).sort()).toEqual(Object.keys(own).sort());
      // What is read of a schema besides parsing it (the SDK's v2 side lists zMcpCapabilities.shape
      // as it loads): each property of the SDK's own schema reads the same through the lazy one.
      const members: string[] = [];
      for (const [exported, schema] of Object.entries(own)) {
        for (const key of ["shape", "options", "element", "enum"] as const) {
          const mine = (schema as unknown as Record<string, unknown>)[key];
          if (mine === undefined) continue;
          const theirs = (lazy[exported] as unknown as Record<string, unknown>)[key];
          members.push(exported);
          expect(typeof theirs, `${exported}.${key}`).toBe(typeof mine);
          if (key === "shape")
            expect(Object.keys(theirs as object), `${exported}.shape`).toEqual(Object.keys(mine as object));
          if (key === "options" && Array.isArray(mine))
            expect((theirs as unknown[]).length, `${exported}.options`).toBe(mine.length);
        }
      }
      expect(members).toContain("zMcpCapabilities");
    },
  );

  // The comparison, a quarter of the schemas at a time: each part is a few seconds on an idle
  // machine, and stays well inside a test's time on a busy one (the whole took 72 s there).
  const PARTS = 4;
  it.each(
    GENERATED.flatMap((file) =>
      Array.from({ length: PARTS }, (_, part) => [path.relative(SDK, file), part, file] as const),
    ),
  )("%s (part %i) parses every value as the SDK's own schemas do", async (name, part, file) => {
    const { own, lazy } = await pairOf(name, file);
    expect(samples.length).toBeGreaterThan(500);
    const outcome = (schema: Schema, value: unknown): unknown => {
      const result = schema.safeParse(value);
      return result.success ? { data: result.data } : { issues: result.error!.issues };
    };
    let parsed = 0;
    let failed = 0;
    const differences: string[] = [];
    for (const [exported, schema] of Object.entries(own).filter((_, i) => i % PARTS === part)) {
      if (typeof schema?.safeParse !== "function") continue;
      for (const value of samples) {
        const expected = outcome(schema, value);
        if (!isDeepStrictEqual(outcome(lazy[exported]!, value), expected))
          differences.push(`${exported} on ${JSON.stringify(value)?.slice(0, 200)}`);
        if ("data" in (expected as object)) parsed++;
        else failed++;
      }
    }
    expect({ differences: differences.length, first: differences.slice(0, 10) }).toEqual({ differences: 0, first: [] });
    // The comparison took both roads many times: values that parse and values that fail.
    expect(parsed).toBeGreaterThan(25);
    expect(failed).toBeGreaterThan(25);
  });

  it("wraps every generated schema and nothing else", () => {
    const source = readFileSync(GENERATED[0]!, "utf8");
    const out = lazifyZodSchemas(source);
    const count = source.match(/^export const z\w+ = /gm)!.length;
    expect(count).toBeGreaterThan(200);
    expect(out.match(/^export const z\w+ = __lazySchema\(\(\) => /gm)).toHaveLength(count);
    // Each schema gains its wrapper and one closing parenthesis; the file, the one helper.
    const helper = /^function __lazySchema\(build\) \{\n[\s\S]*?\n\}\n/m.exec(out)![0];
    expect(out.length - helper.length).toBe(source.length + count * "__lazySchema(() => )".length);
  });

  it("refuses a file that is not laid out as the generator lays it out", () => {
    const head = 'import * as z from "zod/v4";\n';
    expect(() => lazifyZodSchemas("export const zA = 1;\n")).toThrow(/import \* as z/);
    expect(() => lazifyZodSchemas(`${head}const zA = z.string();\n`)).toThrow(/no generated/);
    expect(() => lazifyZodSchemas(`${head}export const zA = z.string();\nexport function f() {}\n`)).toThrow(
      /not of the form/,
    );
    expect(() =>
      lazifyZodSchemas(`${head}export const zA = z.string();\nconst b = 1;\nexport const zB = z.number();\n`),
    ).toThrow(/zA does not end/);
    expect(() => lazifyZodSchemas(`${head}export const zHelper = (s) => s.optional();\n`)).toThrow(
      /zHelper is not one schema expression/,
    );
    expect(() => lazifyZodSchemas(`${head}export const zA = z.string(), zB = zA.optional();\n`)).toThrow(
      /zA is not one schema expression/,
    );
    const out = lazifyZodSchemas(
      `${head}/** a */\nexport const zA = z.string();\n/** b */\nexport const zB = zA.optional();\n`,
    );
    expect(out.startsWith(`${head}function __lazySchema(build) {`)).toBe(true);
    expect(out.slice(out.indexOf("/** a */"))).toBe(
      `/** a */\nexport const zA = __lazySchema(() => z.string());\n/** b */\nexport const zB = __lazySchema(() => zA.optional());\n`,
    );
  });
});
