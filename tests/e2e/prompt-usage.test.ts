// Issue 12: the prompt's result carries the turn's token usage (ACP's PromptResponse.usage), summed
// over every model request of the turn, not the thread's running total.
import { afterEach, expect, it } from "vitest";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { toolCall } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

it("usage in the prompt result: each turn's own tokens, across its model requests", async () => {
  adapter = await startAdapter({
    responses: [
      { items: [{ type: "message", text: "one" }], usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 } },
      {
        items: [toolCall("exec_command", { cmd: "true" }, { callId: "c1" })],
        usage: { input_tokens: 200, output_tokens: 20, total_tokens: 220 },
      },
      { items: [{ type: "message", text: "two" }], usage: { input_tokens: 300, output_tokens: 30, total_tokens: 330 } },
    ],
  });
  // `usage` is in ACP's unstable schema: this client declares one of its capabilities (plan documents);
  // a stable client gets the same figures in _meta (tests/e2e/conformance.test.ts).
  await adapter.initialize({ plan: {} } as Parameters<typeof adapter.initialize>[0]);
  const { sessionId } = await adapter.newSession();
  const first = await adapter.prompt(sessionId, "first");
  expect(first).toMatchObject({
    stopReason: "end_turn",
    usage: { totalTokens: 110, inputTokens: 100, outputTokens: 10 },
  });
  const second = await adapter.prompt(sessionId, "second, with a tool call");
  expect(second).toMatchObject({
    stopReason: "end_turn",
    usage: { totalTokens: 550, inputTokens: 500, outputTokens: 50 },
  });
});
