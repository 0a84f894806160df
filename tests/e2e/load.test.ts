// Load (issue 14): many sessions at once, and a long session of tool-using turns. Everything
// ends end_turn; memory and open files come back to where they were.
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { textResponse, toolCallResponse } from "../../src/fake-model/index.js";
import { startAdapter, type Adapter } from "../support/adapter.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

async function rssMiB(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
}
const openFiles = async (pid: number): Promise<number> => (await readdir(`/proc/${pid}/fd`)).length;

it("20 sessions prompting at the same time all end end_turn", async () => {
  adapter = await startAdapter({ env: { CODEX_ACP_LOG_LEVEL: "info" } });
  await adapter.initialize({});
  const sessions = await Promise.all(Array.from({ length: 20 }, () => adapter!.newSession()));
  adapter.fake.enqueue(...sessions.map((_, i) => textResponse(`answer ${i}`, { deltas: 3 })));
  const results = await Promise.all(sessions.map((s, i) => adapter!.prompt(s.sessionId, `question ${i}`)));
  expect(results.map((r) => r.stopReason)).toEqual(sessions.map(() => "end_turn"));
}, 120_000);

it("300 turns with tool calls: memory and open files stay flat", async () => {
  adapter = await startAdapter({ env: { CODEX_ACP_LOG_LEVEL: "info" } });
  const file = path.join(adapter.workspace, "data.txt");
  await writeFile(file, "some data\n".repeat(100));
  await adapter.initialize({});
  const { sessionId } = await adapter.newSession();
  const pid = adapter.child.pid!;
  const turn = async (i: number): Promise<void> => {
    adapter!.fake.enqueue(toolCallResponse("read_text_file", { path: file, line: 1, limit: 10 }, { namespace: "mcp__acp_fs", callId: `c${i}` }), textResponse(`turn ${i}`));
    expect((await adapter!.prompt(sessionId, `turn ${i}`)).stopReason).toBe("end_turn");
  };
  for (let i = 0; i < 30; i++) await turn(i); // warm up: caches, connections, JIT
  const rss0 = await rssMiB(pid);
  const fds0 = await openFiles(pid);
  for (let i = 30; i < 300; i++) await turn(i);
  await new Promise((r) => setTimeout(r, 500));
  const rss1 = await rssMiB(pid);
  const fds1 = await openFiles(pid);
  process.stderr.write(`[measure] 300 turns: adapter RSS ${rss0.toFixed(1)} -> ${rss1.toFixed(1)} MiB, open files ${fds0} -> ${fds1}\n`);
  expect(rss1 - rss0).toBeLessThanOrEqual(20);
  expect(fds1).toBeLessThanOrEqual(fds0 + 2);
}, 240_000);

it("25 long streamed answers (5,000 deltas each, editor capabilities on): memory stays flat", async () => {
  adapter = await startAdapter({ env: { CODEX_ACP_LOG_LEVEL: "info" } });
  await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
  const { sessionId } = await adapter.newSession();
  const pid = adapter.child.pid!;
  const words = Array.from({ length: 5000 }, (_, i) => `w${i % 10} `);
  const turn = async (i: number): Promise<void> => {
    adapter!.fake.enqueue(textResponse(words.join(""), { deltas: words }));
    expect((await adapter!.prompt(sessionId, `turn ${i}`)).stopReason).toBe("end_turn");
  };
  for (let i = 0; i < 3; i++) await turn(i); // warm up
  const rss0 = await rssMiB(pid);
  let peak = rss0;
  for (let i = 3; i < 25; i++) {
    await turn(i);
    peak = Math.max(peak, await rssMiB(pid));
  }
  process.stderr.write(`[measure] 25 streamed turns: adapter RSS ${rss0.toFixed(1)} -> peak ${peak.toFixed(1)} MiB\n`);
  // Each update used to leave a small C-heap buffer behind when it outlived a young GC: RSS grew
  // ~2 MiB per turn until a full GC (+43 MiB by turn 25). Now the messages are strings (src/acp/stdout.ts).
  expect(peak - rss0).toBeLessThan(12);
  // Every delta reached the client, in order.
  const text = adapter.updatesOf(sessionId).flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])).join("");
  expect(text).toBe(words.join("").repeat(25));
}, 180_000);
