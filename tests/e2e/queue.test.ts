// Prompts sent while a turn runs (issue 12, first part): they wait their turn, first in first out,
// each answered with its own stop reason (hosts such as acpx treated the old -32600 as a failure);
// a cancel ends the running turn and every queued one.
import { afterEach, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse } from "../../tools/fake-model/index.js";
import { startAdapter, type Adapter } from "../support/adapter.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

it("prompts sent during a turn run after it, in order, each ending end_turn", async () => {
  adapter = await startAdapter();
  adapter.fake.enqueue(
    { ...textResponse("first", { deltas: 4 }), delayMs: 40 },
    textResponse("second"),
    textResponse("third"),
  );
  await adapter.initialize({});
  const { sessionId } = await adapter.newSession();
  const done: string[] = [];
  const run = (text: string) => adapter!.prompt(sessionId, text).then((r) => (done.push(text), r));
  const results = await Promise.all([run("one"), run("two"), run("three")]);
  expect(results.map((r) => r.stopReason)).toEqual(["end_turn", "end_turn", "end_turn"]);
  expect(done).toEqual(["one", "two", "three"]);
  const asked = adapter.fake.requests.map((r) => JSON.stringify(r.body.input));
  expect(asked[0]).toContain('"one"');
  expect(asked[1]).toContain('"two"');
  expect(asked[2]).toContain('"three"');
});

it("a cancel ends the running turn and the queued ones", async () => {
  adapter = await startAdapter();
  adapter.fake.enqueue({ ...textResponse("never ends", { deltas: 1 }), hang: true });
  await adapter.initialize({});
  const { sessionId } = await adapter.newSession();
  const running = adapter.prompt(sessionId, "long");
  await adapter.waitForLine((m) => JSON.stringify(m).includes('"agent_message_chunk"'));
  const queued = [adapter.prompt(sessionId, "next"), adapter.prompt(sessionId, "after")];
  // Queued before the cancel: a request sent after them is answered once the agent has taken them
  // (its stdin is read in order, and a prompt is queued as soon as it is taken).
  await expect(adapter.agent.request("nope/after-the-prompts", {})).rejects.toMatchObject({ code: -32601 });
  await adapter.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  const results = await Promise.all([running, ...queued]);
  expect(results.map((r) => r.stopReason)).toEqual(["cancelled", "cancelled", "cancelled"]);
  expect(adapter.fake.requests).toHaveLength(1); // the queued prompts never reached the model
  // The session is usable afterwards.
  adapter.fake.enqueue(textResponse("fresh"));
  expect((await adapter.prompt(sessionId, "again")).stopReason).toBe("end_turn");
});
