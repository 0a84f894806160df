// Hostile input on the ACP pipe (issue 14): thousands of generated bad messages, a 10,000-deep
// nesting and a 50 MB line. The agent answers what has an id with a JSON-RPC error, ignores bad
// notifications, stays up, logs only structured lines, and works afterwards, storm after storm.
// (Its memory through the storms is the bench's to measure.)
import { afterEach, expect, it, vi } from "vitest";
import { textResponse } from "../../tools/fake-model/index.js";
import { messageText, startAdapter, type Adapter } from "../support/adapter.js";
import { hostileExtremes, hostileMessages } from "../support/hostile-input.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  vi.restoreAllMocks();
});

/**
 * The SDK's client prints a line to the console for every answer whose id it did not send: here,
 * the agent's error for each hostile request (~20,000 lines a run, which buried the suite's own
 * output). They are counted instead, and the rest of the console is left as it is.
 */
function quietUnknownResponses(): { count: () => number } {
  let n = 0;
  const print = console.error.bind(console);
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    if (args[0] === "Got response to unknown request") n++;
    else print(...args);
  });
  return { count: () => n };
}

it("survives thousands of hostile messages, deep nesting and a 50 MB line, then works", async () => {
  const unknown = quietUnknownResponses();
  adapter = await startAdapter({ env: { CODEX_ACP_LOG_LEVEL: "info" } });
  await adapter.initialize({});
  const warm = await adapter.newSession();
  adapter.fake.enqueue(textResponse("warm"));
  await adapter.prompt(warm.sessionId, "warm up");
  const before = adapter.stdoutLines.length;

  const a = adapter;
  const storm = async (): Promise<number> => {
    let requests = 0;
    for (const { line, id } of hostileMessages(5000)) {
      a.writeRaw(line);
      if (id !== undefined) requests++;
    }
    for (const line of hostileExtremes()) a.writeRaw(line);
    // A marker answered after everything above was read.
    const answered = a.waitForLine((m) => m.id === "marker", 120_000);
    a.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: "marker", method: "nope/marker" }));
    const marker = await Promise.race([
      answered,
      new Promise<never>((_, reject) =>
        a.child.once("exit", (code) => reject(new Error(`the agent died (${code}): ${a.stderr().slice(-1500)}`))),
      ),
    ]);
    expect(marker).toMatchObject({ id: "marker", error: { code: -32601 } });
    expect(a.child.exitCode).toBeNull();
    return requests;
  };
  const requests = await storm();
  // Every line on stdout is one JSON-RPC message; bad requests got errors, never results.
  const answers = adapter.stdoutLines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const a of answers) expect(a.jsonrpc).toBe("2.0");
  const errors = answers.filter((a) => "error" in a);
  expect(errors.length).toBeGreaterThan(requests / 2);
  // The client heard them as answers to requests it never sent (the hostile ids are not its own).
  expect(unknown.count()).toBeGreaterThan(requests / 2);
  expect(answers.filter((a) => "result" in a && a.id !== undefined && typeof a.method !== "string")).toEqual([]);
  expect(errors.some((e) => e.id === null && (e.error as { code: number }).code === -32700)).toBe(true);
  expect(errors.find((e) => e.id === "deep")).toMatchObject({ error: { code: -32602 } });
  // The 50 MB line is dropped before the SDK (which would end the connection) and refused.
  expect(
    errors.some((e) => e.id === null && (e.error as { message: string }).message.includes("over 31457280 bytes")),
  ).toBe(true);

  // Stderr: structured log lines only.
  for (const l of adapter
    .stderr()
    .split("\n")
    .filter((x) => x.trim()))
    expect(() => JSON.parse(l), l.slice(0, 200)).not.toThrow();

  // A session works, and goes on working through more storms.
  adapter.fake.enqueue(textResponse("still fine"));
  const { sessionId } = await adapter.newSession();
  expect((await adapter.prompt(sessionId, "after the storm")).stopReason).toBe("end_turn");
  for (let i = 0; i < 3; i++) await storm();
  adapter.fake.enqueue(textResponse("fine after four"));
  expect((await adapter.prompt(sessionId, "after four storms")).stopReason).toBe("end_turn");
  expect(messageText(adapter.updatesOf(sessionId))).toBe("still finefine after four");
}, 180_000);
