// What the agent's bundle is made of (issue 27): the transcript runner and the fake model are
// tools beside the agent, bundled on their own (dist/transcripts.mjs), and nothing the agent can
// load — statically or lazily — holds them or their dependencies (ajv, execa). Read from the
// build's metafile (scripts/build.mjs writes dist/meta.json). The agent itself is one CommonJS
// function script (dist/agent.js, issue 30) the bin loads through V8's code cache.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import vm from "node:vm";
import path from "node:path";
import { describe, expect, it } from "vitest";

type Meta = {
  outputs: Record<string, { inputs: Record<string, unknown>; imports: Array<{ path: string; kind: string }> }>;
};
const BIN = path.resolve(import.meta.dirname, "../../dist/index.js");
const meta = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../dist/meta.json"), "utf8")) as Meta;

/** Every source file in the outputs `entry` can load (its static and dynamic imports, transitively). */
function inputsReachableFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const inputs = new Set<string>();
  const visit = (output: string): void => {
    if (seen.has(output)) return;
    seen.add(output);
    const out = meta.outputs[output];
    if (!out) return;
    for (const input of Object.keys(out.inputs)) inputs.add(input);
    for (const imported of out.imports) if (imported.path.startsWith("dist/")) visit(imported.path);
  };
  visit(entry);
  return inputs;
}

const TOOLING = /^tools\/|node_modules\/(ajv|ajv-formats|execa)\//;

describe("the agent bundle", () => {
  it("holds none of the tooling, in anything it can load", () => {
    const agent = [...inputsReachableFrom("dist/index.js"), ...inputsReachableFrom("dist/agent.js")];
    expect(agent.some((f) => f.startsWith("src/core/"))).toBe(true);
    expect(agent.filter((f) => TOOLING.test(f))).toEqual([]);
  });

  it("the bin holds only its start-up path; the agent, ACP v2 included, is one function script", () => {
    const bin = [...inputsReachableFrom("dist/index.js")];
    expect(bin).toContain("src/codex/spawn.ts");
    expect(
      bin.filter((f) => /^src\/(core|app|protocol-v2)|node_modules\/(zod|pino|@agentclientprotocol)\//.test(f)),
    ).toEqual([]);
    const agent = meta.outputs["dist/agent.js"]!;
    expect(Object.keys(agent.inputs)).toEqual(
      expect.arrayContaining(["src/serve.ts", "src/core/agent.ts", "src/protocol-v2/front.ts"]),
    );
    expect(agent.imports.filter((i) => i.path.startsWith("dist/"))).toEqual([]);
    // Its whole text is the function the loader compiles: positions V8 reports are the file's own.
    const text = readFileSync(path.resolve(import.meta.dirname, "../../dist/agent.js"), "utf8");
    expect(typeof new vm.Script(text).runInNewContext({})).toBe("function");
  });

  it("the bin is one CommonJS script: Node starts it without its ES module loader (issue 30: ~10 ms before the bin's first line, and codex's spawn, at every start)", async () => {
    // Node's own list of the internal modules it loaded: an ES module entry runs module jobs.
    const dir = await mkdtemp(path.join(os.tmpdir(), "cca-bin-format-"));
    try {
      const preload = path.join(dir, "loaded.cjs");
      await writeFile(
        preload,
        `process.on("exit", () => process.stderr.write(JSON.stringify(process.moduleLoadList)));`,
      );
      const run = spawnSync(process.execPath, ["--require", preload, BIN, "--version"], { encoding: "utf8" });
      expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      const loaded = JSON.parse(run.stderr) as string[];
      expect(loaded).toContain("NativeModule internal/modules/cjs/loader");
      expect(loaded.filter((m) => /esm\/(module_job|translators)/.test(m))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(meta.outputs["dist/index.js"]!.imports.filter((i) => i.path.startsWith("dist/"))).toEqual([]);
  });

  it("the transcript runner is bundled on its own, with the fake model it replays against", () => {
    const runner = [...inputsReachableFrom("dist/transcripts.mjs")];
    expect(runner).toContain("tools/transcripts/index.ts");
    expect(runner.some((f) => f.startsWith("tools/fake-model/"))).toBe(true);
  });
});
