// The soak of `npm run bench` (issue 26): one agent with Zed's capabilities runs 500 turns in one
// session: plain answers, cancels mid-stream, prompts queued behind a running one, subagents, and
// codex killed every 100 turns (the next prompt resumes the thread on a new codex). Printed at
// checkpoints: the agent's RSS, its open files, the session's trackers (logged at debug as each
// turn ends) and any fault its last-resort handler logged; then whether they stayed flat after
// warm-up and whether every prompt was answered. Then a hostile storm on the pipe and the RSS
// after it, and after 30 s idle. Asserts nothing (tests never assert times or memory); BENCH_SOAK=0 leaves it out,
// BENCH_SOAK_TURNS changes its length. Runs alone with `npm run bench:soak`.
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createCodexHome, startFakeModel, type ScriptedResponse } from "../../tools/fake-model/index.js";
import { codexChildPid } from "../../tests/support/adapter.js";
import { hostileExtremes, hostileLargeLine, hostileMessages } from "../../tests/support/hostile-input.js";
import { memoryMB } from "./proc.js";
import { LinePeer, ZED_CAPS } from "./rpc.js";

const TURNS = Number(process.env.BENCH_SOAK_TURNS ?? 500);
const KILL_EVERY = Number(process.env.BENCH_SOAK_KILL_EVERY ?? 100);
const CHECK_EVERY = 50;
const ANSWER_TIMEOUT_MS = 60_000;
const BIN = path.resolve(import.meta.dirname, "../../dist/index.js");
/** Zed's capabilities, and subagent cards. */
const CAPS = { ...ZED_CAPS, subagents: {} };

type Checkpoint = { turn: number; rssMB: number; openFiles: number; trackers: Record<string, number>; faults: number };

const say = (text: string): ScriptedResponse => ({ items: [{ type: "message", text, deltas: 5 }] });

async function openFiles(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length;
}

/** The session's tracker sizes as the last turn that ended logged them, and the faults logged so far. */
async function fromLog(file: string): Promise<{ trackers: Record<string, number>; faults: number }> {
  const lines = (await readFile(file, "utf8").catch(() => "")).split("\n");
  let trackers: Record<string, number> = {};
  let faults = 0;
  for (const line of lines) {
    if (line.includes('"msg":"turn ended"'))
      trackers = (JSON.parse(line) as { trackers: Record<string, number> }).trackers;
    if (line.includes("nobody caught") || line.includes("nobody handled")) faults++;
  }
  return { trackers, faults };
}

export async function benchSoak(): Promise<string[]> {
  const fake = await startFakeModel([]);
  const home = await createCodexHome({ modelUrl: fake.url, approvalPolicy: "never" });
  const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-soak-ws-")));
  const logFile = path.join(workspace, "..", `cca-soak-${process.pid}.log`);
  await writeFile(path.join(workspace, "notes.txt"), "x\n".repeat(100));
  const peer = new LinePeer(
    process.execPath,
    [BIN],
    { ...process.env, ...home.env, CODEX_ACP_LOG_LEVEL: "debug", CODEX_ACP_LOG_FILE: logFile },
    { jsonrpc: true },
  );
  const pid = peer.child.pid!;
  let sent = 0;
  let answered = 0;
  const unexpected: string[] = [];
  const prompt = async (sessionId: string, text: string, expected: string, onChunk?: () => void): Promise<void> => {
    sent++;
    const stop = onChunk
      ? peer.watch(
          (m) =>
            m.method === "session/update" && m.params?.update?.sessionUpdate === "agent_message_chunk" && onChunk(),
        )
      : () => undefined;
    const timeout = new Promise<"timeout">((resolve) =>
      setTimeout(() => resolve("timeout"), ANSWER_TIMEOUT_MS).unref(),
    );
    const r = await Promise.race([
      peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }),
      timeout,
    ]);
    stop();
    if (r === "timeout") return void unexpected.push(`"${text}": no answer within ${ANSWER_TIMEOUT_MS / 1000} s`);
    answered++;
    const got = r.error ? `error ${r.error.message}` : r.result?.stopReason;
    if (got !== expected) unexpected.push(`"${text}": ${got} (expected ${expected})`);
  };
  /**
   * Scripted responses are taken in order by whoever asks first (a subagent and its parent race):
   * each turn starts on an empty queue, so a leftover never answers the wrong request.
   */
  let leftovers = 0;
  const drained = async (): Promise<void> => {
    for (let i = 0; i < 40 && fake.pending() > 0; i++) await new Promise((r) => setTimeout(r, 25));
    leftovers += fake.discardQueued();
  };

  const checkpoints: Checkpoint[] = [];
  try {
    await peer.request("initialize", { protocolVersion: 1, clientCapabilities: CAPS });
    const opened = await peer.request("session/new", { cwd: workspace, mcpServers: [] });
    const sessionId = opened.result.sessionId as string;
    for (let turn = 1; turn <= TURNS; turn++) {
      await drained();
      if (turn % KILL_EVERY === 0) await killCodex(pid);
      if (turn % 10 === 3) {
        // Cancelled once its answer starts streaming; the model never finishes it.
        fake.enqueue({ items: [{ type: "message", text: "a b c d e f g h", deltas: 8 }], delayMs: 50, hang: true });
        let cancelled = false;
        await prompt(sessionId, `cancel ${turn}`, "cancelled", () => {
          if (!cancelled) peer.notify("session/cancel", { sessionId });
          cancelled = true;
        });
      } else if (turn % 10 === 6) {
        // A second prompt sent while the first runs waits its turn.
        fake.enqueue({ ...say(`first ${turn}`), delayMs: 30 }, say(`second ${turn}`));
        await Promise.all([
          prompt(sessionId, `first ${turn}`, "end_turn"),
          prompt(sessionId, `queued ${turn}`, "end_turn"),
        ]);
        turn++;
      } else if (turn % 10 === 8) {
        // A command that edits one file, creates one and deletes another: its card carries the diffs (issue 48).
        const cmd = `sed -i 's/x/y/' notes.txt && echo ${turn} > t${turn % 3}.txt && rm -f t${(turn + 1) % 3}.txt`;
        fake.enqueue(
          { items: [{ type: "function_call", name: "exec_command", arguments: { cmd }, callId: `cmd-${turn}` }] },
          say(`done ${turn}`),
        );
        await prompt(sessionId, `command ${turn}`, "end_turn");
      } else if (turn % 5 === 4) {
        // The parent's next request and the subagent's first race for the queue: both get the same.
        const spawn: ScriptedResponse = {
          items: [
            {
              type: "function_call",
              namespace: "multi_agent_v1",
              name: "spawn_agent",
              arguments: { message: `subtask ${turn}` },
              callId: `spawn-${turn}`,
            },
          ],
        };
        fake.enqueue(spawn, say(`done ${turn}`), say(`done ${turn}`));
        await prompt(sessionId, `subagent ${turn}`, "end_turn");
      } else {
        fake.enqueue(say(`answer ${turn}`));
        await prompt(sessionId, `turn ${turn}`, "end_turn");
      }
      if (turn % CHECK_EVERY === 0 || turn === TURNS) {
        const { trackers, faults } = await fromLog(logFile);
        checkpoints.push({
          turn,
          rssMB: await memoryMB(pid, "VmRSS"),
          openFiles: await openFiles(pid),
          trackers,
          faults,
        });
      }
    }
    const storm = await hostileStorm(peer, pid);
    return [
      ...report(checkpoints, sent, answered, unexpected, storm),
      `scripted responses left unasked (races of parents and subagents) and dropped: ${leftovers}`,
    ];
  } finally {
    await peer.close();
    await fake.close();
    await home.cleanup();
    await rm(workspace, { recursive: true, force: true });
    if (process.env.BENCH_SOAK_KEEP_LOG) process.stderr.write(`soak log kept: ${logFile}\n`);
    else await rm(logFile, { force: true });
  }
}

/** Kills the agent's codex and waits until it is gone (reaped), so the next prompt meets a dead child, not a dying one. */
async function killCodex(agentPid: number): Promise<void> {
  const codex = await codexChildPid(agentPid);
  if (!codex) return;
  process.kill(codex, "SIGKILL");
  for (let i = 0; i < 200; i++) {
    if (!(await readFile(`/proc/${codex}/stat`, "utf8").catch(() => ""))) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

type Storm = { before: number; after: number; peak: number; idle: number; settleMs: number | undefined };

/** How long the agent is left idle after the storm before its RSS is read (issue 49 item 6). */
const STORM_IDLE_MS = 30_000;

/**
 * RSS before, right after, and after 30 s idle following a storm of 5,000 hostile lines (forty of
 * them 20 MB, read and parsed whole), deep nesting and a 50 MB line; and when it first came
 * within 12 MB of before, if it did.
 */
async function hostileStorm(peer: LinePeer, pid: number): Promise<Storm> {
  const before = await memoryMB(pid, "VmRSS");
  let n = 0;
  for (const { line } of hostileMessages(5000)) {
    await peer.writeRawDrained(line);
    if (++n % 125 === 0) await peer.writeRawDrained(hostileLargeLine(n / 125));
  }
  for (const line of hostileExtremes()) await peer.writeRawDrained(line);
  // Answered after everything above was read.
  await peer.request("nope/marker", {});
  const after = await memoryMB(pid, "VmRSS");
  const peak = await memoryMB(pid, "VmHWM");
  let settleMs: number | undefined;
  for (let waited = 500; waited <= STORM_IDLE_MS; waited += 500) {
    await new Promise((r) => setTimeout(r, 500));
    if (settleMs === undefined && (await memoryMB(pid, "VmRSS")) - before < 12) settleMs = waited;
  }
  return { before, after, peak, idle: await memoryMB(pid, "VmRSS"), settleMs };
}

function report(
  checkpoints: Checkpoint[],
  sent: number,
  answered: number,
  unexpected: string[],
  storm: Storm,
): string[] {
  const keys = [...new Set(checkpoints.flatMap((c) => Object.keys(c.trackers)))].sort();
  const lines = [
    `soak: ${TURNS} turns in one session (cancels, queued prompts, subagents, codex killed every 100 turns), agent with Zed's capabilities`,
  ];
  lines.push(`turn   RSS MB  open files  faults  trackers (${keys.join(", ")})`);
  for (const c of checkpoints) {
    lines.push(
      `${String(c.turn).padEnd(6)} ${c.rssMB.toFixed(1).padStart(6)}  ${String(c.openFiles).padStart(10)}  ${String(c.faults).padStart(6)}  ${keys.map((k) => c.trackers[k] ?? "-").join(" ")}`,
    );
  }
  const warm = checkpoints.find((c) => c.turn >= 100) ?? checkpoints[0];
  const last = checkpoints.at(-1);
  if (warm && last) {
    const grew = keys
      .filter((k) => (last.trackers[k] ?? 0) > (warm.trackers[k] ?? 0))
      .map((k) => `${k} ${warm.trackers[k] ?? 0} -> ${last.trackers[k]}`);
    lines.push(
      `after warm-up (turn ${warm.turn} -> ${last.turn}): RSS ${signed(last.rssMB - warm.rssMB)} MB, open files ${signed(last.openFiles - warm.openFiles)}, trackers ${grew.length ? `grew: ${grew.join(", ")}` : "flat"}, faults logged ${last.faults}`,
      "(subagentCards: one per subagent Codex started; the soak asks for one every 5 turns, Codex refuses those past its own limit, and the adapter lets idle ones beyond 32 go)",
    );
  }
  lines.push(
    `prompts answered: ${answered} of ${sent}${unexpected.length ? `; unexpected: ${unexpected.slice(0, 5).join("; ")}${unexpected.length > 5 ? ` (+${unexpected.length - 5} more)` : ""}` : ", each as expected"}`,
  );
  const settled =
    storm.settleMs === undefined
      ? "never within 12 MB of before"
      : `within 12 MB of before after ${(storm.settleMs / 1000).toFixed(1)} s`;
  lines.push(
    `hostile storm (5,000 lines, forty of them 20 MB, a 50 MB line): RSS ${storm.before.toFixed(1)} MB before, ${storm.after.toFixed(1)} right after (peak of the run ${storm.peak.toFixed(1)}), ${storm.idle.toFixed(1)} after ${STORM_IDLE_MS / 1000} s idle (${signed(storm.idle - storm.before)} MB; ${settled})`,
  );
  return lines;
}

const signed = (v: number): string => `${v >= 0 ? "+" : ""}${Number.isInteger(v) ? v : v.toFixed(1)}`;

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${(await benchSoak()).join("\n")}\n`);
