// Issue 49 item 3: a busy codex is not a hung one. A session with hundreds of MCP servers keeps
// the real codex silent (and the hang watchdog's probe unanswered) for seconds while it starts
// them and its CPU time advances: with a 1 s hang timeout it used to be killed, every request waiting on it
// failed with "Codex stopped unexpectedly", and the retry on a new codex was killed again. A
// stopped codex is still found and replaced (tests/e2e/hardening.test.ts, "a hung codex (SIGSTOP)").
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse } from "../../tools/fake-model/index.js";
import { codexChildPid, startAdapter, type Adapter } from "../support/adapter.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

/** Enough stdio servers (none of which can start) to keep codex working on thread/start for seconds. */
const SERVERS = 500;

describe("a codex busy for longer than the hang timeout", () => {
  it("is waited for, not killed: the requests sent meanwhile are answered by the same codex, and the next prompt runs", async () => {
    adapter = await startAdapter({ env: { CODEX_ACP_HANG_TIMEOUT_MS: "1000" } });
    await adapter.initialize({});
    const pid = await codexChildPid(adapter.child.pid!);
    expect(pid).toBeDefined();
    const mcpServers: acp.McpServer[] = Array.from({ length: SERVERS }, (_, i) => ({
      name: `server${i}`,
      command: "/nonexistent/mcp-server",
      args: [String(i)],
      env: [],
    }));
    // Codex starts a thread's MCP servers after answering thread/start: what is asked of it next
    // (the prompts' turn/start, another session's thread/start) waits while it works on them.
    const busy = await adapter.newSession(undefined, { mcpServers });
    adapter.fake.enqueue(textResponse("answered"), textResponse("answered"));
    const [plain, busyTurn] = await Promise.all([adapter.newSession(), adapter.prompt(busy.sessionId, "hello")]);
    expect(busyTurn.stopReason).toBe("end_turn");
    expect((await adapter.prompt(plain.sessionId, "hello")).stopReason).toBe("end_turn");
    // The watchdog looked at the silent codex, and found it working.
    expect(adapter.stderr()).toContain("codex is silent but not hung: it is working");
    expect(adapter.stderr()).not.toContain("codex stopped responding");
    expect(adapter.stderr()).not.toContain("Codex stopped unexpectedly");
    expect(await codexChildPid(adapter.child.pid!)).toBe(pid);
  });
});
