// Issue 12: steering. `_session/steering` adds a message to the running turn (Codex's turn/steer),
// or starts a turn when none runs; advertised as `_meta.steering.supported` at initialize.
import { afterEach, expect, it } from "vitest";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { textResponse, toolCall } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const steerText = "also count the blank lines";
const steering = (sessionId: string, text: string) =>
  adapter!.agent.request("_session/steering", { sessionId, prompt: [{ type: "text", text }] });

it("is advertised at initialize", async () => {
  adapter = await startAdapter();
  const init = await adapter.initialize();
  expect(init._meta).toMatchObject({ steering: { supported: true } });
});

it("joins the running turn: the model's next request carries the message, one prompt, end_turn", async () => {
  adapter = await startAdapter();
  // The first model answer is slow: the steering message arrives while the turn runs.
  adapter.fake.enqueue(
    { items: [toolCall("exec_command", { cmd: "true" }, { callId: "c1" })], delayMs: 400 },
    textResponse("counted"),
  );
  await adapter.initialize();
  const { sessionId } = await adapter.newSession();
  const prompt = adapter.prompt(sessionId, "count the lines");
  await adapter.fake.waitForRequests(1);
  expect(await steering(sessionId, steerText)).toEqual({ outcome: "injected" });
  expect((await prompt).stopReason).toBe("end_turn");
  expect(adapter.fake.requests).toHaveLength(2);
  expect(JSON.stringify(adapter.fake.requests[0]!.body.input)).not.toContain(steerText);
  expect(JSON.stringify(adapter.fake.requests[1]!.body.input)).toContain(steerText);
});

it("with no turn running, starts one", async () => {
  adapter = await startAdapter();
  adapter.fake.enqueue(textResponse("started"));
  await adapter.initialize();
  const { sessionId } = await adapter.newSession();
  const done = adapter.waitForLine((m) => JSON.stringify(m).includes('"text":"started"'));
  expect(await steering(sessionId, "hello")).toEqual({ outcome: "startedNewTurn" });
  await done;
  expect(JSON.stringify(adapter.fake.requests[0]!.body.input)).toContain("hello");
});

it("bad params and unknown sessions are refused clearly", async () => {
  adapter = await startAdapter();
  await adapter.initialize();
  await expect(adapter.agent.request("_session/steering", { sessionId: "x", prompt: [] })).rejects.toMatchObject({
    code: -32602,
  });
  await expect(steering("no-such-session", "hi")).rejects.toMatchObject({
    message: expect.stringContaining("no-such-session"),
  });
});
