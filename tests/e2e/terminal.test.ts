// Issue 13: live terminal cards for clients that declare Zed's terminal-output convention
// (`clientCapabilities._meta.terminal_output`); text output for the others.
import { readFile } from "node:fs/promises";
import { afterEach, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { textResponse, toolCall } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const TERMINALS: acp.ClientCapabilities = { _meta: { terminal_output: true } };
type Meta = { terminal_info?: { terminal_id: string; cwd: string }; terminal_output?: { terminal_id: string; data: string }; terminal_exit?: { terminal_id: string; exit_code: number | null; signal: null } };
const metaOf = (u: acp.SessionUpdate): Meta => ("_meta" in u && u._meta ? (u._meta as Meta) : {});

async function run(caps: acp.ClientCapabilities, cmd: string) {
  adapter = await startAdapter();
  adapter.fake.enqueue({ items: [toolCall("exec_command", { cmd }, { callId: "t1" })] }, textResponse("done"));
  await adapter.initialize(caps);
  const { sessionId } = await adapter.newSession();
  expect((await adapter.prompt(sessionId, "run it")).stopReason).toBe("end_turn");
  return { sessionId, updates: adapter.updatesOf(sessionId).filter((u) => "toolCallId" in u && u.toolCallId === "t1") };
}

it("a command is a terminal card: terminal content with terminal_info, its output streamed as terminal_output, then terminal_exit", async () => {
  const { updates } = await run(TERMINALS, "printf 'one\\ntwo\\n'; exit 3");
  const call = updates[0]!;
  expect(call).toMatchObject({ sessionUpdate: "tool_call", kind: "execute", content: [{ type: "terminal", terminalId: "t1" }] });
  expect(metaOf(call).terminal_info).toEqual({ terminal_id: "t1", cwd: adapter!.workspace });
  const output = updates.map((u) => metaOf(u).terminal_output?.data ?? "").join("");
  expect(output).toBe("one\ntwo\n");
  const exits = updates.filter((u) => metaOf(u).terminal_exit);
  expect(exits).toHaveLength(1);
  expect(metaOf(exits[0]!).terminal_exit).toEqual({ terminal_id: "t1", exit_code: 3, signal: null });
  expect(exits[0]).toMatchObject({ status: "failed" });
  // The exit comes last, and no update replaced the terminal with text.
  expect(updates.at(-1)).toBe(exits[0]);
  for (const u of updates.slice(1)) expect("content" in u ? u.content : undefined).toBeUndefined();
});

it("without the declaration: text content only, no terminal", async () => {
  const { updates } = await run({}, "printf 'one\\ntwo\\n'");
  expect(JSON.stringify(updates)).not.toContain('"terminal"');
  expect(JSON.stringify(updates)).not.toContain("terminal_output");
  expect(JSON.stringify(updates.at(-1))).toContain("one\\ntwo");
});

it("a read stays a read card, not a terminal", async () => {
  const { updates } = await run(TERMINALS, "cat package.json");
  expect(updates[0]).toMatchObject({ kind: "read" });
  expect(JSON.stringify(updates)).not.toContain("terminal_info");
});

it("history replays the newest turn's commands as terminals, with output and exit, and older turns' as text (a terminal each would weigh on the editor)", async () => {
  adapter = await startAdapter();
  adapter.fake.enqueue(
    { items: [toolCall("exec_command", { cmd: "printf 'an older turn\\n'" }, { callId: "t0" })] },
    textResponse("first done"),
    { items: [toolCall("exec_command", { cmd: "printf 'from history\\n'" }, { callId: "t1" })] },
    textResponse("done"),
  );
  await adapter.initialize(TERMINALS);
  const { sessionId } = await adapter.newSession();
  expect((await adapter.prompt(sessionId, "run the first")).stopReason).toBe("end_turn");
  expect((await adapter.prompt(sessionId, "run the second")).stopReason).toBe("end_turn");
  await adapter.agent.request(acp.methods.agent.session.close, { sessionId });
  const before = adapter.updatesOf(sessionId).length;
  await adapter.agent.request(acp.methods.agent.session.load, { sessionId, cwd: adapter.workspace, mcpServers: [] });
  const replayedOf = (id: string) => adapter!.updatesOf(sessionId).slice(before).filter((u) => "toolCallId" in u && u.toolCallId === id);
  const older = replayedOf("t0");
  expect(older).toHaveLength(1);
  expect(older[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "execute", status: "completed" });
  expect(JSON.stringify(older)).not.toContain("terminal");
  expect(JSON.stringify(older[0])).toContain("an older turn");
  const newest = replayedOf("t1");
  expect(newest[0]).toMatchObject({ sessionUpdate: "tool_call", content: [{ type: "terminal", terminalId: "t1" }] });
  expect(metaOf(newest[1]!)).toEqual({ terminal_output: { terminal_id: "t1", data: "from history\n" }, terminal_exit: { terminal_id: "t1", exit_code: 0, signal: null } });
});

/**
 * Runs a command that prints 100 lines of 1 MB, paced so that Codex streams them (it streams up
 * to 10,000 chunks), sampling the adapter's RSS; `meanwhile` runs beside it with the characters
 * streamed so far.
 */
async function hundredMegabytes(meanwhile?: (streamed: () => number) => Promise<void>): Promise<{ streamed: number; before: number; peak: number }> {
  adapter = await startAdapter();
  const cmd = "for i in $(seq 1 100); do head -c 1000000 /dev/zero | tr '\\0' 'x'; echo; sleep 0.02; done";
  adapter.fake.enqueue({ items: [toolCall("exec_command", { cmd, yield_time_ms: 60000 }, { callId: "big" })] }, textResponse("done"));
  await adapter.initialize(TERMINALS);
  const { sessionId } = await adapter.newSession();
  const a = adapter;
  const rss = async () => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${a.child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  const streamed = () => a.updatesOf(sessionId).reduce((n, u) => n + (metaOf(u).terminal_output?.data.length ?? 0), 0);
  const before = await rss();
  let peak = before;
  const timer = setInterval(() => void rss().then((r) => (peak = Math.max(peak, r)), () => undefined), 50);
  try {
    const side = meanwhile?.(streamed);
    expect((await a.prompt(sessionId, "print a lot")).stopReason).toBe("end_turn");
    await side;
  } finally {
    clearInterval(timer);
  }
  return { streamed: streamed(), before, peak };
}

it("a 100 MB output streams through with the adapter's memory bounded", async () => {
  const { streamed, before, peak } = await hundredMegabytes();
  process.stderr.write(`[measure] terminal: ${streamed} characters streamed; adapter RSS ${before.toFixed(1)} -> peak ${peak.toFixed(1)} MiB\n`);
  // Each chunk goes out as it comes (nothing accumulates): the peak is the heap's churn, far
  // below the text streamed (held, it would take twice its size as JS strings).
  expect(streamed).toBeGreaterThan(50_000_000);
  expect(peak - before).toBeLessThan(128);
}, 120_000);

it("a client that stops reading for 3 s during a 100 MB output: the adapter holds its memory, and everything arrives after", async () => {
  // Once the output is flowing, the client stops reading its end of the pipe for 3 s.
  const { streamed, before, peak } = await hundredMegabytes(async (streamedNow) => {
    while (streamedNow() < 5_000_000) await new Promise((r) => setTimeout(r, 20));
    adapter!.child.stdout!.pause();
    await new Promise((r) => setTimeout(r, 3000));
    adapter!.child.stdout!.resume();
  });
  process.stderr.write(`[measure] terminal, client stalled 3 s: ${streamed} characters streamed; adapter RSS ${before.toFixed(1)} -> peak ${peak.toFixed(1)} MiB\n`);
  expect(streamed).toBeGreaterThan(50_000_000);
  // While the client is behind, codex's output is not read (src/acp/stdout.ts): what codex says
  // in those 3 s waits in its pipe. Before, it piled up here as queued messages: +221 MiB.
  expect(peak - before).toBeLessThan(48);
}, 120_000);
