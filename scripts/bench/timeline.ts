// The timeline section of `npm run bench` (issue 30): where each millisecond of what the user
// waits for goes in codex-cli-acp, from the agent's own phase marks (src/log/timings.ts: debug log
// lines `{"timing", "atMs"}`) placed beside what the client saw. Fresh agents with Zed's
// capabilities: spawn -> initialize -> first session/new, then the first prompt of that fresh
// session, a second one on it (running), and a second session/new (warm). Separate runs from the table's (debug logging costs a
// little), medians with their spread. Asserts nothing.
import { readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { FakeModel, ScriptedResponse } from "../../tools/fake-model/index.js";
import { median } from "./proc.js";
import { LinePeer } from "./rpc.js";

type TimelineOptions = {
  bin: string;
  env: NodeJS.ProcessEnv;
  workspace: string;
  fake: FakeModel;
  caps: unknown;
  answer: ScriptedResponse;
  pieces: ReadonlySet<string>;
  runs: number;
};

/** One phase's times (ms) over the runs, in the order phases were first seen. */
type Phases = Map<string, number[]>;

/** The epoch time now, in ms with the precision of the monotonic clock. */
const epochNow = (): number => performance.timeOrigin + performance.now();

/** The agent's timing lines, in the order it wrote them, as epoch ms. */
async function agentMarks(logFile: string): Promise<Array<{ phase: string; at: number }>> {
  const lines = (await readFile(logFile, "utf8").catch(() => "")).split("\n").filter((l) => l.includes('"timing"'));
  let origin = NaN;
  const marks: Array<{ phase: string; at: number }> = [];
  for (const line of lines) {
    const m = JSON.parse(line) as { timing: string; atMs: number; timeOrigin?: number };
    if (m.timeOrigin !== undefined) origin = m.timeOrigin;
    marks.push({ phase: m.timing, at: origin + m.atMs });
  }
  return marks;
}

const add = (phases: Phases, phase: string, ms: number): void => {
  if (!phases.has(phase)) phases.set(phase, []);
  phases.get(phase)!.push(ms);
};

export async function benchTimeline(o: TimelineOptions): Promise<string[]> {
  const startup: Phases = new Map();
  const prompts: [Phases, Phases] = [new Map(), new Map()];
  const warmNew: Phases = new Map();
  for (let run = 0; run < o.runs; run++) {
    const logFile = path.join(os.tmpdir(), `cca-bench-timeline-${process.pid}-${run}.log`);
    const spawnedAt = epochNow();
    const peer = new LinePeer(
      process.execPath,
      [o.bin],
      { ...o.env, CODEX_ACP_LOG_LEVEL: "debug", CODEX_ACP_LOG_FILE: logFile },
      { jsonrpc: true, cwd: o.workspace },
    );
    const client: Array<{ phase: string; at: number }> = [];
    await peer.request("initialize", { protocolVersion: 1, clientCapabilities: o.caps });
    client.push({ phase: "client: initialize result read", at: epochNow() });
    const r = await peer.request("session/new", { cwd: o.workspace, mcpServers: [] });
    client.push({ phase: "client: first session/new result read", at: epochNow() });
    const sessionId = r.result?.sessionId as string;
    const promptWindows: Array<{ sent: number; done: number }> = [];
    for (const which of [0, 1] as const) {
      o.fake.enqueue(o.answer);
      let firstChunk = NaN;
      const stop = peer.watch((m) => {
        const text =
          m.method === "session/update" && m.params?.update?.sessionUpdate === "agent_message_chunk"
            ? m.params.update.content?.text
            : undefined;
        if (Number.isNaN(firstChunk) && typeof text === "string" && o.pieces.has(text)) firstChunk = epochNow();
      });
      const sent = epochNow();
      await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
      const done = epochNow();
      stop();
      promptWindows.push({ sent, done });
      add(prompts[which], "client: first chunk read", firstChunk - sent);
      add(prompts[which], "client: prompt result read", done - sent);
    }
    // A second session/new on the warm agent (what opening another thread costs).
    const newSent = epochNow();
    await peer.request("session/new", { cwd: o.workspace, mcpServers: [] });
    const newDone = epochNow();
    add(warmNew, "client: session/new result read", newDone - newSent);
    await peer.close();
    const marks = await agentMarks(logFile);
    await rm(logFile, { force: true });
    // Start-up: every mark before the first prompt was sent, from the spawn.
    const firstPrompt = promptWindows[0]!.sent;
    for (const m of [...marks.filter((m) => m.at < firstPrompt), ...client]) add(startup, m.phase, m.at - spawnedAt);
    for (const [i, w] of promptWindows.entries()) {
      // The fake model's own clock mark: what of the wait is codex's before it asks the model.
      const model = o.fake.requests.find((r) => r.receivedAt >= w.sent && r.receivedAt <= w.done);
      const inWindow = model ? [...marks, { phase: "model: codex's request arrived", at: model.receivedAt }] : marks;
      for (const m of inWindow) if (m.at >= w.sent && m.at <= w.done) add(prompts[i as 0 | 1], m.phase, m.at - w.sent);
    }
    for (const m of marks) if (m.at >= newSent && m.at <= newDone) add(warmNew, m.phase, m.at - newSent);
  }
  return [
    `codex-cli-acp timeline (fs caps as Zed; the agent's own phase marks at debug level, medians of ${o.runs}, min-max)`,
    ...table("spawn -> first session ready (ms since the client spawned the agent)", startup),
    ...table("first prompt of that fresh session (ms since the client sent it)", prompts[0]),
    ...table("second prompt, running session (ms since the client sent it)", prompts[1]),
    ...table("a second session/new on the warm agent (ms since the client sent it)", warmNew),
  ];
}

function table(title: string, phases: Phases): string[] {
  const rows = [...phases].map(([phase, ms]) => ({ phase, ms, med: median(ms) })).sort((a, b) => a.med - b.med);
  const width = Math.max(...rows.map((r) => r.phase.length));
  let previous = 0;
  return [
    `  ${title}`,
    ...rows.map((r) => {
      const line = `    ${r.phase.padEnd(width)}  ${r.med.toFixed(1).padStart(7)}  (+${(r.med - previous).toFixed(1).padStart(5)})  ${Math.min(...r.ms).toFixed(1)}-${Math.max(...r.ms).toFixed(1)}`;
      previous = r.med;
      return line;
    }),
  ];
}
