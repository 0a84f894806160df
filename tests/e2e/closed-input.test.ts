// Issue 49, item 4: a client that writes its requests and closes its end of the pipe (a script,
// `printf ... | codex-cli-acp`) gets an answer to every request it wrote before the agent exits; a
// prompt running then is cancelled and answered, not run to its end. Real codex, fake model.
import { afterEach, describe, expect, it } from "vitest";
import { spawnAgent, startAdapter, type Adapter, type AgentProcess } from "../support/adapter.js";

let proc: AgentProcess | undefined;
let adapter: Adapter | undefined;
afterEach(async () => {
  await proc?.stop();
  await adapter?.close();
  proc = undefined;
  adapter = undefined;
});

/** Resolves with the exit code once the process has exited and its stdout is read to the end. */
const closedWith = (child: AgentProcess["child"]): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null && child.stdout?.readableEnded) resolve(child.exitCode);
    else child.once("close", (code) => resolve(code));
  });

const answerTo = (lines: string[], id: number): Record<string, unknown> | undefined =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((m) => m.id === id && !("method" in m));

describe("the client closes its input after its requests", () => {
  it("initialize and session/new written, stdin closed: both are answered, then the agent exits", async () => {
    proc = await spawnAgent();
    const closed = closedWith(proc.child);
    const requests = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
      { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: proc.workspace, mcpServers: [] } },
    ];
    proc.child.stdin!.end(requests.map((r) => `${JSON.stringify(r)}\n`).join(""));
    expect(await closed).toBe(0);
    expect(answerTo(proc.stdoutLines, 1)).toMatchObject({ result: { protocolVersion: 1 } });
    expect(answerTo(proc.stdoutLines, 2)).toMatchObject({ result: { sessionId: expect.any(String) } });
  });

  it("the same from an ACP v2 client (which waits for initialize's answer before session/new, as v2 requires)", async () => {
    proc = await spawnAgent();
    const closed = closedWith(proc.child);
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 2, info: { name: "script", version: "1" }, capabilities: {} },
    };
    const initialized = proc.waitForLine((m) => m.id === 1);
    proc.child.stdin!.write(`${JSON.stringify(initialize)}\n`);
    await initialized;
    proc.child.stdin!.end(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: proc.workspace } })}\n`,
    );
    expect(await closed).toBe(0);
    expect(answerTo(proc.stdoutLines, 1)).toMatchObject({ result: { protocolVersion: 2 } });
    expect(answerTo(proc.stdoutLines, 2)).toMatchObject({ result: { sessionId: expect.any(String) } });
  });

  it("a prompt running when stdin closes is cancelled and answered, not run to its end; the agent exits", async () => {
    adapter = await startAdapter({
      responses: [
        { items: [{ type: "message", text: "a long answer that never ends", deltas: 6 }], delayMs: 100, hang: true },
      ],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    const answer = adapter.prompt(sessionId, "talk forever");
    await adapter.waitForLine(
      (m) => m.method === "session/update" && JSON.stringify(m).includes("agent_message_chunk"),
    );
    const closed = closedWith(adapter.child);
    adapter.child.stdin!.end();
    expect((await answer).stopReason).toBe("cancelled");
    expect(await closed).toBe(0);
  });
});
