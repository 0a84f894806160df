// Interleaved start-up A/B of agent builds (issue 30): each run spawns every build in turn and
// times spawn -> initialize, -> first session ready, and a second (warm) session/new, so drift in
// the machine's load hits every build alike. Prints medians; asserts nothing.
//   npx tsx scripts/bench/ab.ts /one/checkout/dist/index.js /other/checkout/dist/index.js
//   AB_RUNS=15 (default) runs per build after one unmeasured warm-up run (which also lets a build
//   write its code cache).
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createCodexHome, startFakeModel } from "../../tools/fake-model/index.js";
import { median } from "./proc.js";
import { LinePeer, ZED_CAPS } from "./rpc.js";

const builds = process.argv.slice(2).map((b) => path.resolve(b));
if (builds.length === 0) {
  process.stderr.write("usage: tsx scripts/bench/ab.ts <dist/index.js> [<dist/index.js> ...]\n");
  process.exit(2);
}
const RUNS = Number(process.env.AB_RUNS ?? 15);

const fake = await startFakeModel([]);
const home = await createCodexHome({ modelUrl: fake.url, approvalPolicy: "never" });
const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-ab-ws-")));
const env = { ...process.env, ...home.env, CODEX_ACP_LOG_LEVEL: "warn" };
const times = new Map(builds.map((b) => [b, { init: [] as number[], ready: [] as number[], warm: [] as number[] }]));
try {
  for (let run = 0; run <= RUNS; run++) {
    for (const bin of builds) {
      const t0 = performance.now();
      const peer = new LinePeer(process.execPath, [bin], env, { jsonrpc: true, cwd: workspace });
      await peer.request("initialize", { protocolVersion: 1, clientCapabilities: ZED_CAPS });
      const t1 = performance.now();
      const opened: number[] = [];
      for (const _ of [0, 1]) {
        const r = await peer.request("session/new", { cwd: workspace, mcpServers: [] });
        if (r.error) throw new Error(`${bin}: session/new failed: ${JSON.stringify(r.error)}`);
        opened.push(performance.now());
      }
      await peer.close();
      if (run === 0) continue;
      const t = times.get(bin)!;
      t.init.push(t1 - t0);
      t.ready.push(opened[0]! - t0);
      t.warm.push(opened[1]! - opened[0]!);
    }
  }
} finally {
  await fake.close();
  await home.cleanup();
  await rm(workspace, { recursive: true, force: true });
}
console.log(
  `start-up A/B, medians of ${RUNS} interleaved runs (ms): spawn -> initialize | spawn -> first session ready | a second session/new`,
);
for (const [bin, t] of times)
  console.log(
    `${median(t.init).toFixed(1).padStart(8)} ${median(t.ready).toFixed(1).padStart(8)} ${median(t.warm).toFixed(1).padStart(8)}  ${bin}`,
  );
