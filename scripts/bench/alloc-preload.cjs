// Preloaded (node --require) into an agent by scripts/bench/alloc.ts: V8's sampling heap profiler,
// keeping the samples of objects the GC already collected (so it counts what was allocated, not what
// is still alive), and Node's GC events. At exit, writes to CCA_ALLOC_OUT the sampled bytes and the
// young-generation collections' count and time. Measurement only: it never ships.
"use strict";
const inspector = require("node:inspector");
const fs = require("node:fs");
const { PerformanceObserver, constants } = require("node:perf_hooks");

const out = process.env.CCA_ALLOC_OUT;
const session = new inspector.Session();
session.connect();
session.post("HeapProfiler.enable");
session.post("HeapProfiler.startSampling", {
  samplingInterval: 256,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const gc = { scavenges: 0, scavengeMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail.kind !== constants.NODE_PERFORMANCE_GC_MINOR) continue;
    gc.scavenges += 1;
    gc.scavengeMs += entry.duration;
  }
}).observe({ entryTypes: ["gc"] });

process.on("exit", () => {
  // The in-process inspector answers synchronously: the profile is here before exit goes on.
  session.post("HeapProfiler.stopSampling", (err, result) => {
    if (err || !out) return;
    let bytes = 0;
    const walk = (node) => {
      bytes += node.selfSize;
      for (const child of node.children) walk(child);
    };
    walk(result.profile.head);
    fs.writeFileSync(out, JSON.stringify({ bytes, gc }));
  });
});
