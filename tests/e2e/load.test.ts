// Load (issue 14): many sessions at once, and a long session of tool-using turns. Everything
// ends end_turn; open files and the session's trackers come back to where they were. (Memory is
// measured by `npm run bench`, its soak included, not asserted here: RSS on a shared machine is
// not a pass/fail figure.)
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { textResponse, toolCallResponse } from "../../tools/fake-model/index.js";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

/** The session's tracker sizes as the latest turn to end logged them (at debug). */
function lastTrackers(a: Adapter): Record<string, number> | undefined {
  const line = a
    .stderr()
    .split("\n")
    .findLast((l) => l.includes('"msg":"turn ended"'));
  return line ? (JSON.parse(line) as { trackers: Record<string, number> }).trackers : undefined;
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

it("300 turns with tool calls: open files and the session's trackers stay flat", async () => {
  adapter = await startAdapter({ env: { CODEX_ACP_LOG_LEVEL: "debug" } });
  const file = path.join(adapter.workspace, "data.txt");
  await writeFile(file, "some data\n".repeat(100));
  await adapter.initialize({});
  const { sessionId } = await adapter.newSession();
  const pid = adapter.child.pid!;
  const turn = async (i: number): Promise<void> => {
    adapter!.fake.enqueue(
      toolCallResponse(
        "read_text_file",
        { path: file, line: 1, limit: 10 },
        { namespace: "mcp__acp_fs", callId: `c${i}` },
      ),
      textResponse(`turn ${i}`),
    );
    expect((await adapter!.prompt(sessionId, `turn ${i}`)).stopReason).toBe("end_turn");
  };
  for (let i = 0; i < 30; i++) await turn(i); // warm up: caches, connections
  const fds0 = await openFiles(pid);
  const trackers0 = lastTrackers(adapter);
  expect(trackers0).toMatchObject({ items: 0, claimedFileToolCalls: 0, runningFileToolCalls: 0, abandonedTurns: 0 });
  for (let i = 30; i < 300; i++) await turn(i);
  expect(lastTrackers(adapter)).toEqual(trackers0);
  // A connection the last turn used may still be closing.
  await waitFor(async () => (await openFiles(pid)) <= fds0 + 2, `open files back near the ${fds0} after warm-up`);
}, 240_000);

it("25 long streamed answers (5,000 deltas each, editor capabilities on): every delta reaches the client, in order", async () => {
  adapter = await startAdapter({ env: { CODEX_ACP_LOG_LEVEL: "info" } });
  await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
  const { sessionId } = await adapter.newSession();
  const words = Array.from({ length: 5000 }, (_, i) => `w${i % 10} `);
  const turn = async (i: number): Promise<void> => {
    adapter!.fake.enqueue(textResponse(words.join(""), { deltas: words }));
    expect((await adapter!.prompt(sessionId, `turn ${i}`)).stopReason).toBe("end_turn");
  };
  for (let i = 0; i < 25; i++) await turn(i);
  const text = adapter
    .updatesOf(sessionId)
    .flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []))
    .join("");
  expect(text).toBe(words.join("").repeat(25));
}, 180_000);
