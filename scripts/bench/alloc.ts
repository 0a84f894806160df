// What the agent allocates per streamed delta (issue 30: "no work per streamed delta beyond parse,
// map and one write"), for one or more builds: the same session streams TURNS turns of DELTAS
// deltas, and again TURNS turns of one delta each; the difference, over the deltas, is what a delta
// costs the heap, free of start-up and of each turn's own work. Unlike CPU time on a shared machine,
// the figure moves little between runs (V8's sampling heap profiler, objects already collected
// included: scripts/bench/alloc-preload.cjs). Also the young-generation collections per 1,000
// deltas that allocation causes. A section of `npm run bench` (ours and BENCH_BASELINE), and on its own:
//   npx tsx scripts/bench/alloc.ts dist/index.js [/other/checkout/dist/index.js ...]
//   ALLOC_RUNS=3 ALLOC_TURNS=4 ALLOC_DELTAS=5000 (defaults)
// Prints figures; asserts nothing.
import { readFile, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createCodexHome, startFakeModel, type FakeModel } from "../../tools/fake-model/index.js";
import { median } from "./proc.js";
import { LinePeer, ZED_CAPS } from "./rpc.js";

type Figures = { bytes: number; gc: { scavenges: number; scavengeMs: number } };

export type AllocationOptions = {
  builds: string[];
  fake: FakeModel;
  /** The environment of the agents (a hermetic codex home on the fake model). */
  env: NodeJS.ProcessEnv;
  workspace: string;
  runs?: number;
  turns?: number;
  deltas?: number;
};

const PRELOAD = path.join(import.meta.dirname, "alloc-preload.cjs");

/** One agent process: a session, `turns` turns of `deltas` deltas each, then the preload's figures. */
async function measure(
  o: AllocationOptions,
  scratch: string,
  bin: string,
  turns: number,
  deltas: number,
): Promise<Figures> {
  const out = path.join(scratch, `figures-${deltas}.json`);
  // The code cache off: writing it (3 s in, or at exit) would land in one run and not the other.
  const env = { ...o.env, CODEX_ACP_LOG_LEVEL: "warn", CCA_ALLOC_OUT: out, NODE_DISABLE_COMPILE_CACHE: "1" };
  const peer = new LinePeer(process.execPath, ["--require", PRELOAD, bin], env, { jsonrpc: true, cwd: o.workspace });
  await peer.request("initialize", { protocolVersion: 1, clientCapabilities: ZED_CAPS });
  const opened = await peer.request("session/new", { cwd: o.workspace, mcpServers: [] });
  if (opened.error) throw new Error(`${bin}: session/new failed: ${JSON.stringify(opened.error)}`);
  const sessionId = (opened.result as { sessionId: string }).sessionId;
  const text = Array.from({ length: deltas }, (_, i) => `w${i % 10} `).join("");
  for (let turn = 0; turn < turns; turn++) {
    o.fake.enqueue({ items: [{ type: "message", text, deltas }] });
    const answer = await peer.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "stream please" }],
    });
    if (answer.error) throw new Error(`${bin}: prompt failed: ${JSON.stringify(answer.error)}`);
  }
  await peer.close();
  return JSON.parse(await readFile(out, "utf8")) as Figures;
}

/** The section's lines: per build, allocation and scavenges per delta (medians of interleaved runs, min-max). */
export async function benchAllocation(o: AllocationOptions): Promise<string[]> {
  const runs = o.runs ?? 3;
  const turns = o.turns ?? 4;
  const deltas = o.deltas ?? 5000;
  const scratch = await mkdtemp(path.join(os.tmpdir(), "cca-alloc-"));
  try {
    const perBuild = new Map(
      o.builds.map((bin) => [bin, { bytes: [] as number[], scavenges: [] as number[], scavengeUs: [] as number[] }]),
    );
    // Builds interleaved, run after run: how deltas bunch into reads (and so what a delta costs)
    // follows the machine's load, which then weighs on every build alike.
    for (let run = 0; run < runs; run++) {
      for (const bin of o.builds) {
        const streamed = await measure(o, scratch, bin, turns, deltas);
        const baseline = await measure(o, scratch, bin, turns, 1);
        const perDelta = (a: number, b: number): number => (a - b) / (turns * (deltas - 1));
        const figures = perBuild.get(bin)!;
        figures.bytes.push(perDelta(streamed.bytes, baseline.bytes));
        figures.scavenges.push(perDelta(streamed.gc.scavenges, baseline.gc.scavenges) * 1000);
        figures.scavengeUs.push(perDelta(streamed.gc.scavengeMs, baseline.gc.scavengeMs) * 1000);
      }
    }
    const spread = (xs: number[], digits: number, scale = 1): string =>
      `${(median(xs) * scale).toFixed(digits)}  (${(Math.min(...xs) * scale).toFixed(digits)}-${(Math.max(...xs) * scale).toFixed(digits)})`;
    return [
      `allocation per streamed delta (medians of ${runs}, min-max; ${turns} turns x ${deltas} deltas, less ${turns} x 1; fs caps as Zed)`,
      ...o.builds.flatMap((bin) => {
        const f = perBuild.get(bin)!;
        return [
          `  ${path.relative(process.cwd(), bin) || bin}`,
          `    allocated per delta            ${spread(f.bytes, 2, 1 / 1024)} KiB`,
          `    scavenges per 1,000 deltas     ${spread(f.scavenges, 2)}`,
          `    scavenge time per delta        ${spread(f.scavengeUs, 2)} us`,
        ];
      }),
    ];
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const builds = process.argv.slice(2).map((b) => path.resolve(b));
  if (builds.length === 0) {
    process.stderr.write("usage: tsx scripts/bench/alloc.ts <dist/index.js> [<dist/index.js> ...]\n");
    process.exit(2);
  }
  const fake = await startFakeModel([]);
  const home = await createCodexHome({ modelUrl: fake.url, approvalPolicy: "never" });
  const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-alloc-ws-")));
  try {
    const numeric = (name: string): number | undefined => (process.env[name] ? Number(process.env[name]) : undefined);
    const lines = await benchAllocation({
      builds,
      fake,
      env: { ...process.env, ...home.env },
      workspace,
      runs: numeric("ALLOC_RUNS"),
      turns: numeric("ALLOC_TURNS"),
      deltas: numeric("ALLOC_DELTAS"),
    });
    process.stdout.write(`codex-cli-acp ${lines.join("\n")}\n`);
  } finally {
    await fake.close();
    await home.cleanup();
    await rm(workspace, { recursive: true, force: true });
  }
}
