// npm run bench: the adapter's start-up, latency, throughput and memory, each beside
// plain `codex app-server` measured in the same run with the same fake model, with a client that
// advertises fs capabilities as Zed does (fs) and with one that advertises none (no caps).
// Prints figures; asserts nothing (tests never assert times).
import { statSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  createCodexHome,
  startFakeModel,
  defaultCodexPath,
  splitDeltas,
  type ScriptedResponse,
} from "../../tools/fake-model/index.js";
import { startMcpStub } from "./mcp-stub.js";
import { preparePeers } from "./peers.js";
import { LinePeer, ZED_CAPS } from "./rpc.js";
import { extraCaCertsNote, extraCaCertsSet, EXTRA_CA_VAR, withoutExtraCaCerts } from "./node-env.js";
import { cpuMs, median, memoryMB, treeCpuMs } from "./proc.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const STREAM_DELTAS = 5000;
/** How long after a session opened the bench's "user" sends its first prompt (typing it takes longer). */
const USER_PAUSE_MS = 500;
const BIN = path.resolve(import.meta.dirname, "../../dist/index.js");
/**
 * BENCH_BASELINE=/other/checkout/dist/index.js adds that build as one more side, with Zed's
 * capabilities, measured in the same run: the before of a before/after figure.
 */
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
const CODEX = defaultCodexPath();

type Row = { name: string; value: number; unit: string; note?: string };

const fake = await startFakeModel([]);
const home = await createCodexHome({ modelUrl: fake.url, approvalPolicy: "never" });
const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-bench-ws-")));
const env = { ...process.env, ...home.env, CODEX_ACP_LOG_LEVEL: "warn" };

const SMALL_TEXT = "one two three four five";
const BIG_TEXT = Array.from({ length: STREAM_DELTAS }, (_, i) => `w${i % 10} `).join("");
const smallAnswer: ScriptedResponse = { items: [{ type: "message", text: SMALL_TEXT, deltas: 5 }] };
const bigAnswer = (): ScriptedResponse => ({ items: [{ type: "message", text: BIG_TEXT, deltas: STREAM_DELTAS }] });
/**
 * The pieces the model streams: only those count as its chunks. A side may show other text first
 * (ours shows Codex's configuration warnings, such as a missing bubblewrap, as a note at the top of
 * the first turn): counting that as the first chunk would time the note, not the model.
 */
const SMALL_PIECES = new Set(splitDeltas(SMALL_TEXT, 5));
const BIG_PIECES = new Set(splitDeltas(BIG_TEXT, STREAM_DELTAS));

type Side = string;
const { peers, notes } = await preparePeers(path.resolve(import.meta.dirname, "../.."), env, CODEX);
const SIDES: Side[] = [
  "plain",
  "adapter",
  "adapter-fs",
  ...(BASELINE ? ["baseline-fs"] : []),
  ...peers.map((p) => p.name),
];
/**
 * The start-up and latency rows add plain codex whose threads have one HTTP MCP server that
 * answers at once (scripts/bench/mcp-stub.ts): codex waits for a new thread's MCP servers before
 * its first turn, so that side is the floor for a first prompt sent as a session opens, for any
 * adapter whose file tools are an MCP server. The other sections leave it out.
 */
const LATENCY_SIDES: Side[] = ["plain", "plain-mcp", ...SIDES.slice(1)];
const mcpStub = await startMcpStub();
const LABEL: Record<Side, string> = {
  plain: "plain codex app-server",
  "plain-mcp": "plain codex + 1 HTTP MCP server",
  adapter: "codex-cli-acp (no caps)",
  "adapter-fs": "codex-cli-acp (fs, as Zed)",
  "baseline-fs": "baseline build (fs, as Zed)",
  ...Object.fromEntries(peers.map((p) => [p.name, p.label])),
};

const isPlain = (side: Side): boolean => side === "plain" || side === "plain-mcp";

/** `envOf`: the environment the side is given, from its own (the start-up row without NODE_EXTRA_CA_CERTS). */
function start(side: Side, envOf: (e: NodeJS.ProcessEnv) => NodeJS.ProcessEnv = (e) => e): LinePeer {
  const peer = peers.find((p) => p.name === side);
  // Every side starts in the workspace, as Zed starts an agent in the project's root.
  const acp = { jsonrpc: true, cwd: workspace };
  if (peer) return new LinePeer(peer.file, peer.args, envOf(peer.env), acp);
  if (side === "baseline-fs") return new LinePeer(process.execPath, [BASELINE!], envOf(env), acp);
  return isPlain(side)
    ? new LinePeer(CODEX, ["app-server"], envOf(env), { jsonrpc: false, cwd: workspace })
    : new LinePeer(process.execPath, [BIN], envOf(env), acp);
}

async function handshake(peer: LinePeer, side: Side): Promise<void> {
  if (isPlain(side)) {
    await peer.request("initialize", {
      clientInfo: { name: "bench", title: null, version: "1" },
      capabilities: { experimentalApi: true },
    });
    peer.notify("initialized");
  } else {
    await peer.request("initialize", { protocolVersion: 1, clientCapabilities: side === "adapter" ? {} : ZED_CAPS });
  }
}

async function openSession(peer: LinePeer, side: Side): Promise<string> {
  if (isPlain(side)) {
    // With a bearer header, as our file tools are configured: without one, codex looks for an
    // OAuth sign-in first (thread/start measured 30-58 ms instead of 13-23).
    const mcp =
      side === "plain-mcp"
        ? {
            config: {
              mcp_servers: { bench_stub: { url: mcpStub.url, http_headers: { Authorization: "Bearer bench" } } },
            },
          }
        : {};
    const r = await peer.request("thread/start", {
      cwd: workspace,
      approvalPolicy: "never",
      sandbox: "workspace-write",
      ...mcp,
    });
    return r.result.thread.id as string;
  }
  const r = await peer.request("session/new", { cwd: workspace, mcpServers: [] });
  if (r.error) throw new Error(`session/new failed: ${JSON.stringify(r.error)}`);
  return r.result.sessionId as string;
}

/** Runs one turn; returns ms to the first text chunk, to the end, and the chunk count. */
async function turn(
  peer: LinePeer,
  side: Side,
  id: string,
  text: string,
  pieces: ReadonlySet<string>,
): Promise<{ first: number; done: number; chunks: number; span: number }> {
  let first = -1;
  let last = 0;
  let chunks = 0;
  const t0 = performance.now();
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const stop = peer.watch((m) => {
    const piece = isPlain(side)
      ? m.method === "item/agentMessage/delta"
        ? m.params?.delta
        : undefined
      : m.method === "session/update" && m.params?.update?.sessionUpdate === "agent_message_chunk"
        ? m.params.update.content?.text
        : undefined;
    if (typeof piece === "string" && pieces.has(piece)) {
      const now = performance.now();
      if (first < 0) first = now;
      last = now;
      chunks++;
    }
    if (isPlain(side) && m.method === "turn/completed") resolveDone();
  });
  if (isPlain(side)) {
    await peer.request("turn/start", { threadId: id, input: [{ type: "text", text, text_elements: [] }] });
    await done;
  } else {
    const r = await peer.request("session/prompt", { sessionId: id, prompt: [{ type: "text", text }] });
    if (r.error) throw new Error(`prompt failed: ${JSON.stringify(r.error)}`);
  }
  const end = performance.now();
  stop();
  return { first: first - t0, done: end - t0, chunks, span: last - first };
}

const samples: Record<string, Record<Side, number[]>> = {};
const add = (k: string, side: Side, v: number) => {
  samples[k] ??= Object.fromEntries(LATENCY_SIDES.map((s) => [s, []]));
  samples[k][side]!.push(v);
};

process.stderr.write(`bench: ${RUNS} runs per side, interleaved\n`);
/**
 * The same start on a machine whose environment has no extra CA certificates (most users'): every
 * Node side pays for loading them before its first line (scripts/bench/node-env.ts).
 */
async function startWithoutExtraCaCerts(side: Side): Promise<void> {
  const t0 = performance.now();
  const peer = start(side, withoutExtraCaCerts);
  await handshake(peer, side);
  await openSession(peer, side);
  add(`spawn -> first session ready, without ${EXTRA_CA_VAR}`, side, performance.now() - t0);
  await peer.close();
}

for (let i = 0; i < RUNS; i++) {
  for (const side of LATENCY_SIDES) {
    // Before the side's own start on odd runs, after it on even ones: neither way is always second.
    if (extraCaCertsSet() && i % 2 === 1) await startWithoutExtraCaCerts(side);
    const t0 = performance.now();
    const peer = start(side);
    await handshake(peer, side);
    add("spawn -> initialize result", side, performance.now() - t0);
    // The first session/new right after initialize (what an editor does on start), then a
    // second on a warm process (what a user waits for when opening a thread).
    const t2 = performance.now();
    await openSession(peer, side);
    add("first session/new right after initialize", side, performance.now() - t2);
    // What the user waits for when the agent panel opens a thread on a fresh start.
    add("spawn -> first session ready (initialize + session/new)", side, performance.now() - t0);
    const t1 = performance.now();
    const id = await openSession(peer, side);
    add("session/new (thread/start)", side, performance.now() - t1);
    // The first prompt of that new session, then a second on it (a running session); then the
    // first prompt of a third session sent USER_PAUSE_MS after it opened, as a user who types it
    // does (codex connects a new thread's MCP servers meanwhile; sent at once, the prompt waits on it).
    const typed = async (): Promise<string> => {
      const third = await openSession(peer, side);
      await new Promise((r) => setTimeout(r, USER_PAUSE_MS));
      return third;
    };
    for (const which of [
      "new session's first",
      "running session",
      `new session's first, ${USER_PAUSE_MS} ms after it opened`,
    ] as const) {
      const session = which.endsWith("opened") ? await typed() : id;
      fake.enqueue(smallAnswer);
      const r = await turn(peer, side, session, "hello", SMALL_PIECES);
      if (r.chunks === 0) process.stderr.write(`warning: ${side} streamed none of the answer; turn left out\n`);
      else {
        add(`prompt -> first chunk (${which})`, side, r.first);
        add(`prompt -> result (${which})`, side, r.done);
      }
    }
    await peer.close();
    if (extraCaCertsSet() && i % 2 === 0) await startWithoutExtraCaCerts(side);
  }
}
const caNote = extraCaCertsNote(RUNS);
if (caNote) notes.push(caNote);

// Throughput and memory: one process per side, 5,000-delta turns alternating between the
// sides (so drift in the machine's load hits both alike), then cancel latency.
const rss: Record<Side, number> = {};
const rssNow: Record<Side, number> = {};
const cancelMs: number[] = [];
const open = {} as Record<Side, { peer: LinePeer; id: string }>;
for (const side of SIDES) {
  const peer = start(side);
  await handshake(peer, side);
  open[side] = { peer, id: await openSession(peer, side) };
}
for (let i = 0; i < Math.max(7, RUNS); i++) {
  for (const side of SIDES) {
    fake.enqueue(bigAnswer());
    const pid = open[side]!.peer.child.pid!;
    const [tree0, own0] = [await treeCpuMs(pid), await cpuMs(pid)];
    const r = await turn(open[side]!.peer, side, open[side]!.id, "stream please", BIG_PIECES);
    const [tree1, own1] = [await treeCpuMs(pid), await cpuMs(pid)];
    if (r.chunks !== STREAM_DELTAS) {
      // Not the scripted stream (a side's own extra model request took it): not a sample.
      process.stderr.write(`warning: ${side} saw ${r.chunks} of the ${STREAM_DELTAS} chunks; turn left out\n`);
      continue;
    }
    add(`chunks per second (${STREAM_DELTAS}-delta stream)`, side, (r.chunks - 1) / (r.span / 1000));
    add(`CPU of the process tree for that stream`, side, tree1 - tree0);
    // The side's own process: for Zed's adapter that includes the codex built into it.
    add(`CPU of the adapter process itself, per delta (us)`, side, ((own1 - own0) * 1000) / STREAM_DELTAS);
  }
}
{
  // Cancel latency: session/cancel mid-stream -> prompt result.
  const { peer, id } = open["adapter-fs"]!;
  for (let i = 0; i < 5; i++) {
    fake.enqueue({ items: [{ type: "message", text: "a b c d e f g h", deltas: 8 }], delayMs: 100, hang: true });
    let t = 0;
    let sent = false;
    const stop = peer.watch((m) => {
      if (!sent && m.method === "session/update" && m.params?.update?.sessionUpdate === "agent_message_chunk") {
        sent = true;
        t = performance.now();
        peer.notify("session/cancel", { sessionId: id });
      }
    });
    const r = await peer.request("session/prompt", { sessionId: id, prompt: [{ type: "text", text: "cancel me" }] });
    stop();
    if (r.result?.stopReason !== "cancelled") process.stderr.write(`warning: cancel gave ${JSON.stringify(r)}\n`);
    cancelMs.push(performance.now() - t);
  }
}
// A turn with one shell command (the model runs `echo`, then answers): with Zed's capabilities the
// adapter's PreToolUse guard against apply_patch through the shell runs before the command; without
// capabilities it does not. The difference is what the guard costs per shell call.
const shellTurnMs: Record<string, number[]> = { adapter: [], "adapter-fs": [] };
for (let i = 0; i < RUNS; i++) {
  for (const side of ["adapter", "adapter-fs"] as const) {
    const { peer, id } = open[side]!;
    fake.enqueue(
      {
        items: [
          {
            type: "function_call",
            name: "exec_command",
            arguments: { cmd: "echo bench" },
            callId: `bench-sh-${side}-${i}`,
          },
        ],
      },
      smallAnswer,
    );
    const t0 = performance.now();
    const r = await peer.request("session/prompt", { sessionId: id, prompt: [{ type: "text", text: "run echo" }] });
    if (r.error) process.stderr.write(`warning: shell turn failed: ${JSON.stringify(r.error)}\n`);
    else shellTurnMs[side]!.push(performance.now() - t0);
  }
}
for (const side of SIDES) {
  rss[side] = await memoryMB(open[side]!.peer.child.pid!, "VmHWM");
  rssNow[side] = await memoryMB(open[side]!.peer.child.pid!, "VmRSS");
}
// The long session (issue 30's memory figure, beside the peers): LONG_TURNS short turns in the
// session each side already streamed in; its process's RSS before and after. The 500-turn soak
// (cancels, queues, subagents, codex killed) follows for ours alone.
const LONG_TURNS = Number(process.env.BENCH_LONG_TURNS ?? 300);
const longRss: Record<Side, { before: number; after: number }> = {};
if (LONG_TURNS > 0) {
  process.stderr.write(`bench: ${LONG_TURNS} turns in one session per side\n`);
  for (const side of SIDES) {
    const { peer, id } = open[side]!;
    const before = await memoryMB(peer.child.pid!, "VmRSS");
    for (let t = 0; t < LONG_TURNS; t++) {
      fake.enqueue(smallAnswer);
      await turn(peer, side, id, `turn ${t}`, SMALL_PIECES);
    }
    longRss[side] = { before, after: await memoryMB(peer.child.pid!, "VmRSS") };
  }
}
for (const side of SIDES) await open[side]!.peer.close();

// Ratios of codex-cli-acp with Zed's capabilities to each other side. The table's columns are the
// latency rows' sides; a section that left a side out shows "-" there.
const COLUMNS = LATENCY_SIDES;
const others = COLUMNS.filter((s) => s !== "adapter-fs" && s !== "adapter");
const rows: string[][] = [["measure", ...COLUMNS.map((s) => LABEL[s]!), ...others.map((o) => `fs / ${o}`)]];
for (const [name, s] of Object.entries(samples)) {
  const unit = name.startsWith("chunks") ? "/s" : name.endsWith("(us)") ? " us" : " ms";
  const fmt = (v: number) =>
    Number.isNaN(v)
      ? "-"
      : unit === "/s"
        ? `${Math.round(v).toLocaleString("en-US")}${unit}`
        : `${v.toFixed(1)}${unit}`;
  const med = (side: Side) => (s[side]?.length ? median(s[side]) : NaN);
  rows.push([
    name,
    ...COLUMNS.map((side) => fmt(med(side))),
    ...others.map((o) => (Number.isNaN(med(o)) ? "-" : (med("adapter-fs") / med(o)).toFixed(2))),
  ]);
}
/** A row only some sides have (the rest "-"), with no ratios. */
const sideRow = (name: string, cell: (side: Side) => string | undefined): string[] => [
  name,
  ...COLUMNS.map((side) => cell(side) ?? "-"),
  ...others.map(() => "-"),
];
rows.push(
  sideRow("peak RSS (adapter process; codex child excluded)", (side) =>
    rss[side] === undefined ? undefined : `${rss[side].toFixed(1)} MB`,
  ),
);
rows.push(
  sideRow("RSS after the streams (adapter process; codex child excluded)", (side) =>
    rssNow[side] === undefined ? undefined : `${rssNow[side].toFixed(1)} MB`,
  ),
);
if (LONG_TURNS > 0) {
  rows.push(
    sideRow(`RSS after ${LONG_TURNS} more turns in one session (its process; codex child excluded)`, (side) =>
      longRss[side] ? `${longRss[side].after.toFixed(1)} MB` : undefined,
    ),
  );
  rows.push(
    sideRow(`RSS growth over those ${LONG_TURNS} turns`, (side) =>
      longRss[side] ? `${(longRss[side].after - longRss[side].before).toFixed(1)} MB` : undefined,
    ),
  );
}
/** What a start loads: the bin and the agent bundle beside it (the transcript runner and lazy chunks are not loaded). */
const bundleKiB = (bin: string): string =>
  `${((statSync(bin).size + statSync(path.join(path.dirname(bin), "agent.js")).size) / 1024).toFixed(0)} KiB`;
rows.push(
  sideRow("bundle loaded at start (dist/index.js + agent.js)", (side) =>
    side === "adapter-fs" ? bundleKiB(BIN) : side === "baseline-fs" ? bundleKiB(BASELINE!) : undefined,
  ),
);
rows.push(
  sideRow("prompt with one shell command -> result", (side) =>
    shellTurnMs[side] ? `${median(shellTurnMs[side]).toFixed(1)} ms` : undefined,
  ),
);
rows.push(
  sideRow("session/cancel -> prompt result (median of 5)", (side) =>
    side === "adapter-fs" ? `${median(cancelMs).toFixed(1)} ms` : undefined,
  ),
);

let timeline: string[] = [];
if (process.env.BENCH_TIMELINE !== "0") {
  const { benchTimeline } = await import("./timeline.js");
  timeline = await benchTimeline({
    bin: BIN,
    env,
    workspace,
    fake,
    caps: ZED_CAPS,
    answer: smallAnswer,
    pieces: SMALL_PIECES,
    runs: RUNS,
  });
}

// What a streamed delta allocates, ours and the baseline's (the steady figure behind CPU per delta).
let allocation: string[] = [];
if (process.env.BENCH_ALLOC !== "0") {
  const { benchAllocation } = await import("./alloc.js");
  allocation = await benchAllocation({ builds: [BIN, ...(BASELINE ? [BASELINE] : [])], fake, env, workspace });
}

// Shell commands in a 50,000-file workspace: what showing their changes costs (issue 48).
let commands: string[] = [];
if (process.env.BENCH_COMMANDS !== "0") {
  try {
    const { benchCommandWatch } = await import("./command-watch.js");
    commands = await benchCommandWatch({
      builds: [{ label: "codex-cli-acp", bin: BIN }, ...(BASELINE ? [{ label: "baseline", bin: BASELINE }] : [])],
      fake,
      env,
      runs: RUNS,
    });
  } catch (err) {
    commands = [`command bench failed: ${err instanceof Error ? err.message : String(err)}`];
  }
}

let extra: Row[] = [];
try {
  // Resolved at run time: the file-tool section is optional.
  const section = "./file-tools.js";
  const mod = (await import(section)) as { benchFileTools?: () => Promise<Row[]> };
  if (mod.benchFileTools) extra = await mod.benchFileTools();
} catch (err) {
  process.stderr.write(`file-tool bench skipped: ${err instanceof Error ? err.message : String(err)}\n`);
}

let huge: string[];
try {
  const { benchHugeSession } = await import("./huge-session.js");
  huge = await benchHugeSession({
    codexPath: CODEX,
    bin: BIN,
    ...(BASELINE ? { baseline: BASELINE } : {}),
    peers,
    caps: ZED_CAPS,
  });
} catch (err) {
  huge = [`huge session bench failed: ${err instanceof Error ? err.message : String(err)}`];
}

let soak: string[] = [];
if (process.env.BENCH_SOAK !== "0") {
  try {
    const { benchSoak } = await import("./soak.js");
    soak = await benchSoak();
  } catch (err) {
    soak = [`soak failed: ${err instanceof Error ? err.message : String(err)}`];
  }
}

const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
const out = rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")).join("\n");
process.stdout.write(
  `\ncodex-cli-acp bench (medians of ${RUNS}; node ${process.version}; ${os.cpus().length} cores)\n${out}\n`,
);
if (notes.length) process.stdout.write(`${notes.map((n) => `note: ${n}`).join("\n")}\n`);
if (timeline.length) process.stdout.write(`\n${timeline.join("\n")}\n`);
if (allocation.length) process.stdout.write(`\n${allocation.join("\n")}\n`);
if (commands.length) process.stdout.write(`\n${commands.join("\n")}\n`);
if (extra.length) {
  process.stdout.write(
    `\nfile tools\n${extra.map((r) => `${r.name.padEnd(60)} ${r.value.toFixed(1)} ${r.unit}${r.note ? `  (${r.note})` : ""}`).join("\n")}\n`,
  );
}

if (huge.length) process.stdout.write(`\n${huge.join("\n")}\n`);
if (soak.length) process.stdout.write(`\n${soak.join("\n")}\n`);

await mcpStub.close();
await fake.close();
await home.cleanup();
await rm(workspace, { recursive: true, force: true });
