// What showing a command's changes costs (issue 48): in a workspace of 50,000 files (most in
// node_modules and .git, as a real one), each build runs turns of one shell command with Zed's
// capabilities: one that changes nothing (`true`) and one that changes a file (`sed -i`). Figures:
// the prompt's time to its result (median), the first command's (it starts the watch), the
// agent's RSS after, and the inotify watches it holds. With BENCH_BASELINE, the build before.
// A section of `npm run bench`, and on its own:
//   npx tsx scripts/bench/command-watch.ts dist/index.js [/other/checkout/dist/index.js]
// Prints figures; asserts nothing.
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  createCodexHome,
  startFakeModel,
  type FakeModel,
  type ScriptedResponse,
} from "../../tools/fake-model/index.js";
import { median, memoryMB } from "./proc.js";
import { LinePeer, ZED_CAPS } from "./rpc.js";

export type CommandWatchOptions = {
  builds: Array<{ label: string; bin: string }>;
  fake: FakeModel;
  env: NodeJS.ProcessEnv;
  runs?: number;
};

/** 40,000 files in node_modules, 5,000 in .git, 5,000 in src (250 folders): 50,000, ~700 folders. */
async function bigWorkspace(): Promise<string> {
  const ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-bench-50k-")));
  const fill = async (dir: string, n: number, text: (i: number) => string): Promise<void> => {
    await mkdir(dir, { recursive: true });
    await Promise.all(Array.from({ length: n }, (_, i) => writeFile(path.join(dir, `f${i}.txt`), text(i))));
  };
  for (let p = 0; p < 200; p++)
    await fill(path.join(ws, "node_modules", `pkg${p}`, "lib"), 200, (i) => `module.exports = ${i};\n`);
  for (let d = 0; d < 50; d++) await fill(path.join(ws, ".git", "objects", `o${d}`), 100, (i) => `blob ${i}\n`);
  for (let d = 0; d < 250; d++) await fill(path.join(ws, "src", `d${d}`), 20, (i) => `line a ${i}\nline b\n`);
  await writeFile(path.join(ws, ".gitignore"), "dist/\n");
  return ws;
}

/** The inotify watches a process holds (each is one line of its inotify descriptors' fdinfo). */
async function inotifyWatches(pid: number): Promise<number> {
  let n = 0;
  for (const fd of await readdir(`/proc/${pid}/fdinfo`).catch(() => [])) {
    const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, "utf8").catch(() => "");
    n += info.split("\n").filter((l) => l.startsWith("inotify wd:")).length;
  }
  return n;
}

const shell = (cmd: string, callId: string): ScriptedResponse => ({
  items: [{ type: "function_call", name: "exec_command", arguments: { cmd }, callId }],
});
const answer: ScriptedResponse = { items: [{ type: "message", text: "done", deltas: 1 }] };

export async function benchCommandWatch(o: CommandWatchOptions): Promise<string[]> {
  const runs = o.runs ?? 9;
  const ws = await bigWorkspace();
  const lines = [
    `shell commands in a 50,000-file workspace (node_modules 40,000, .git 5,000, src 5,000; medians of ${runs}; fs caps as Zed)`,
  ];
  const table: string[][] = [
    ["build", "first command", "`true` (no change)", "`sed -i` (1 file)", "RSS after", "inotify watches"],
  ];
  try {
    for (const build of o.builds) {
      const peer = new LinePeer(
        process.execPath,
        [build.bin],
        { ...o.env, CODEX_ACP_LOG_LEVEL: "warn" },
        { jsonrpc: true, cwd: ws },
      );
      try {
        await peer.request("initialize", { protocolVersion: 1, clientCapabilities: ZED_CAPS });
        const opened = await peer.request("session/new", { cwd: ws, mcpServers: [] });
        if (opened.error) throw new Error(`session/new failed: ${JSON.stringify(opened.error)}`);
        const sessionId = opened.result.sessionId as string;
        const prompt = async (cmd: string, callId: string): Promise<number> => {
          o.fake.enqueue(shell(cmd, callId), answer);
          const t0 = performance.now();
          const r = await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
          if (r.error) throw new Error(`prompt failed: ${JSON.stringify(r.error)}`);
          return performance.now() - t0;
        };
        const first = await prompt("true", `${build.label}-first`);
        const quiet: number[] = [];
        const edits: number[] = [];
        for (let i = 0; i < runs; i++) {
          quiet.push(await prompt("true", `${build.label}-true-${i}`));
          edits.push(
            await prompt(`sed -i 's/line a/line A/' src/d${i % 250}/f${i % 20}.txt`, `${build.label}-sed-${i}`),
          );
        }
        const pid = peer.child.pid!;
        table.push([
          build.label,
          `${first.toFixed(1)} ms`,
          `${median(quiet).toFixed(1)} ms`,
          `${median(edits).toFixed(1)} ms`,
          `${(await memoryMB(pid, "VmRSS")).toFixed(1)} MB`,
          String(await inotifyWatches(pid)),
        ]);
      } finally {
        await peer.close();
      }
    }
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  return [...lines, ...table.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  "))];
}

// On its own: the builds named on the command line, against a fake model of its own.
if (import.meta.url === `file://${process.argv[1]}`) {
  const bins = process.argv.slice(2);
  const fake = await startFakeModel([]);
  const home = await createCodexHome({ modelUrl: fake.url, approvalPolicy: "never" });
  try {
    const out = await benchCommandWatch({
      builds: bins.map((b, i) => ({ label: i === 0 ? "this build" : `build ${i}`, bin: path.resolve(b) })),
      fake,
      env: { ...process.env, ...home.env },
    });
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    await fake.close();
    await home.cleanup();
  }
}
