// Issue 2: the foundation, end to end: real codex binary, fake model, SDK client.
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { codexChildPid, messageText, startAdapter, type Adapter } from "../support/adapter.js";

let adapter: Adapter | undefined;

afterEach(async () => {
  if (!adapter) return;
  const lines = adapter.stdoutLines;
  await adapter.close();
  // stdout belongs to the protocol: every line is exactly one JSON-RPC 2.0 message.
  for (const line of lines) {
    const msg = JSON.parse(line) as Record<string, unknown>;
    expect(msg.jsonrpc).toBe("2.0");
    expect("method" in msg || "result" in msg || "error" in msg).toBe(true);
  }
  adapter = undefined;
});

describe("handshake", () => {
  it("answers initialize with protocol v1 and only the capabilities that work", async () => {
    adapter = await startAdapter();
    const init = await adapter.initialize();
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({
      image: true,
      embeddedContext: true,
      audio: false,
    });
    expect(init.agentCapabilities?.mcpCapabilities).toMatchObject({ http: true, sse: false });
    expect(init.authMethods?.map((m) => m.id)).toEqual(["openai-api-key", "codex-login"]);
    expect(init.agentInfo?.name).toBe("codex-cli-acp");
  });

  it("refuses a relative cwd with invalid params", async () => {
    adapter = await startAdapter();
    await adapter.initialize();
    await expect(adapter.newSession("relative/dir")).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("absolute"),
    });
  });
  it("a prompt longer than Codex takes is invalid params with Codex's limit, and the session goes on", async () => {
    adapter = await startAdapter({ responses: [{ items: [{ type: "message", text: "fine" }] }] });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await expect(adapter.prompt(sessionId, "x".repeat(1_100_000))).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("1048576"),
      data: { max_chars: 1048576, actual_chars: 1100000 },
    });
    expect((await adapter.prompt(sessionId, "a short one")).stopReason).toBe("end_turn");
  });
});

describe("text turns", () => {
  it("streams the model's text as chunks that concatenate to it, then end_turn", async () => {
    const text = "Hello from the fake model, streamed in pieces.";
    adapter = await startAdapter({ responses: [{ items: [{ type: "message", text, deltas: 8 }] }] });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    const result = await adapter.prompt(sessionId, "say hello");
    expect(result.stopReason).toBe("end_turn");
    const updates = adapter.updatesOf(sessionId);
    expect(messageText(updates)).toBe(text);
    expect(updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length).toBeGreaterThan(1);
    expect(updates.some((u) => u.sessionUpdate === "usage_update")).toBe(true);
    // What the user typed reached the model.
    expect(JSON.stringify(adapter.fake.requests[0]?.body.input)).toContain("say hello");
  });

  it("streams reasoning as agent_thought_chunk", async () => {
    adapter = await startAdapter({
      responses: [
        {
          items: [
            { type: "reasoning", summary: "Thinking about it" },
            { type: "message", text: "Done." },
          ],
        },
      ],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "think");
    const thoughts = adapter
      .updatesOf(sessionId)
      .filter((u) => u.sessionUpdate === "agent_thought_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""))
      .join("");
    expect(thoughts).toBe("Thinking about it");
    expect(messageText(adapter.updatesOf(sessionId))).toBe("Done.");
  });

  it("sends embedded resources and resource links to the model as context", async () => {
    adapter = await startAdapter({ responses: [{ items: [{ type: "message", text: "seen" }] }] });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, [
      { type: "text", text: "look at this" },
      { type: "resource", resource: { uri: "file:///w/a.ts", text: "const unsaved = 1;" } },
      { type: "resource_link", uri: "file:///w/b.ts", name: "b.ts" },
    ]);
    const sent = JSON.stringify(adapter.fake.requests[0]?.body.input);
    expect(sent).toContain("const unsaved = 1;");
    expect(sent).toContain("file:///w/b.ts");
  });

  it("runs two sessions concurrently without crossing their streams", async () => {
    adapter = await startAdapter({
      responses: [
        { items: [{ type: "message", text: "first answer alpha", deltas: 6 }], delayMs: 5 },
        { items: [{ type: "message", text: "second answer beta", deltas: 6 }], delayMs: 5 },
      ],
    });
    await adapter.initialize();
    const a = await adapter.newSession();
    const b = await adapter.newSession();
    expect(a.sessionId).not.toBe(b.sessionId);
    const [ra, rb] = await Promise.all([
      adapter.prompt(a.sessionId, "prompt for A"),
      adapter.prompt(b.sessionId, "prompt for B"),
    ]);
    expect(ra.stopReason).toBe("end_turn");
    expect(rb.stopReason).toBe("end_turn");
    // Whichever scripted answer the fake gave to A's request is what A (and only A) shows.
    const answerTo = (marker: string) => {
      const req = adapter!.fake.requests.find((r) => JSON.stringify(r.body.input).includes(marker));
      const item = req?.scripted?.items?.[0];
      return item && item.type === "message" ? item.text : undefined;
    };
    expect(messageText(adapter.updatesOf(a.sessionId))).toBe(answerTo("prompt for A"));
    expect(messageText(adapter.updatesOf(b.sessionId))).toBe(answerTo("prompt for B"));
    expect(answerTo("prompt for A")).not.toBe(answerTo("prompt for B"));
  });

  it("cancels mid-stream: the prompt resolves with stopReason cancelled", async () => {
    adapter = await startAdapter({
      responses: [
        {
          items: [{ type: "message", text: "one two three four five six seven eight", deltas: 8 }],
          delayMs: 150,
          hang: true,
        },
        { items: [{ type: "message", text: "after cancel" }] },
      ],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    const pending = adapter.prompt(sessionId, "long answer please");
    await adapter.waitForLine(
      (m) =>
        m.method === "session/update" &&
        (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "agent_message_chunk",
    );
    await adapter.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    const result = await pending;
    expect(result.stopReason).toBe("cancelled");
    // The session stays usable.
    const again = await adapter.prompt(sessionId, "next");
    expect(again.stopReason).toBe("end_turn");
  });
});

describe("failures", () => {
  it("a model HTTP 500 fails the prompt with Codex's message, then the session works again", async () => {
    adapter = await startAdapter({
      responses: [
        { httpStatus: 500, errorMessage: "the fake model is on fire" },
        { items: [{ type: "message", text: "recovered" }] },
      ],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    const err = await adapter.prompt(sessionId, "first").then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(err?.code).toBe(-32603);
    // Codex words a 500 itself (the upstream body is not passed on); its error code is kept.
    expect(err?.message).toMatch(/internalServerError/);
    expect(err?.message.length).toBeGreaterThan("[internalServerError]".length + 5);
    const ok = await adapter.prompt(sessionId, "second");
    expect(ok.stopReason).toBe("end_turn");
    expect(messageText(adapter.updatesOf(sessionId))).toContain("recovered");
  });

  it("the codex child killed mid-turn: a clear error, then new sessions and prompts work", async () => {
    adapter = await startAdapter({
      responses: [
        { items: [{ type: "message", text: "never finishes", deltas: 4 }], delayMs: 100, hang: true },
        { items: [{ type: "message", text: "fresh child answers" }] },
      ],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    const pending = adapter.prompt(sessionId, "start");
    await adapter.waitForLine(
      (m) =>
        m.method === "session/update" &&
        (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "agent_message_chunk",
    );
    const pid = await codexChildPid(adapter.child.pid!);
    expect(pid).toBeTypeOf("number");
    process.kill(pid!, "SIGKILL");
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e as { message: string },
    );
    expect(err?.message).toMatch(/Codex stopped unexpectedly \(killed by SIGKILL\)/);
    const second = await adapter.newSession();
    const ok = await adapter.prompt(second.sessionId, "hello again");
    expect(ok.stopReason).toBe("end_turn");
    expect(messageText(adapter.updatesOf(second.sessionId))).toBe("fresh child answers");
    const newPid = await codexChildPid(adapter.child.pid!);
    expect(newPid).not.toBe(pid);
  });

  it("answers a malformed line and an unknown method with JSON-RPC errors and keeps serving", async () => {
    adapter = await startAdapter({ responses: [{ items: [{ type: "message", text: "still here" }] }] });
    await adapter.initialize();
    const parseError = adapter.waitForLine((m) => (m.error as { code?: number } | undefined)?.code === -32700);
    adapter.writeRaw("{this is not json");
    expect(await parseError).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    const unknown = adapter.waitForLine((m) => m.id === "probe-1");
    adapter.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: "probe-1", method: "no/such_method", params: {} }));
    expect(await unknown).toMatchObject({ error: { code: -32601 } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "ping")).stopReason).toBe("end_turn");
    expect(messageText(adapter.updatesOf(sessionId))).toBe("still here");
  });

  it("an invalid request (wrong jsonrpc, a method that is not a string) is answered -32600 with its id, so the client does not hang", async () => {
    adapter = await startAdapter({ responses: [{ items: [{ type: "message", text: "still here" }] }] });
    await adapter.initialize();
    for (const [id, message] of [
      ["bad-version", { jsonrpc: "1.0", id: "bad-version", method: "session/new", params: {} }],
      [41, { jsonrpc: "2.0", id: 41, method: 42, params: {} }],
      ["no-version", { id: "no-version", method: "session/list" }],
    ] as const) {
      const answer = adapter.waitForLine((m) => m.id === id, 5000);
      adapter.writeRaw(JSON.stringify(message));
      expect(await answer).toMatchObject({
        jsonrpc: "2.0",
        id,
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
      });
    }
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "ping")).stopReason).toBe("end_turn");
  });

  it("without a usable codex binary, initialize still works and session/new says why", async () => {
    adapter = await startAdapter({ env: { CODEX_PATH: "/nonexistent/codex" } });
    const init = await adapter.initialize();
    expect(init.protocolVersion).toBe(1);
    await expect(adapter.newSession()).rejects.toMatchObject({
      message: expect.stringContaining("CODEX_PATH does not exist: /nonexistent/codex"),
    });
  });

  it("a prompt to an unknown session is an error, not a crash", async () => {
    adapter = await startAdapter();
    await adapter.initialize();
    await expect(adapter.prompt("no-such-session", "hi")).rejects.toMatchObject({ code: expect.any(Number) });
  });

  it("exits promptly when the editor closes stdin", async () => {
    adapter = await startAdapter();
    await adapter.initialize();
    await adapter.newSession();
    const exited = new Promise<number | null>((resolve) => adapter!.child.once("exit", (code) => resolve(code)));
    adapter.child.stdin!.end();
    expect(await exited).toBe(0);
  });
});
