// Issue 50: prompt suggestions, an option the user turns on (off by default: each costs a model
// call). On, each completed turn is followed by Codex's `thread/sample` (one more model request
// over the thread's history, which leaves no trace in it), and the predicted next message reaches
// the client as the official adapter sends it: a `session_info_update` whose
// `_meta.promptSuggestions` is `{ suggestions: [{ text }] }` (an empty list clears it).
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, it } from "vitest";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { textResponse, type RecordedRequest } from "../support/fake-model.js";
import { waitFor } from "../support/wait-for.js";

/** The `_meta` key the official adapters (codex-acp 2.6, claude-agent-acp) send the suggestion under. */
const SUGGESTION_META_KEY = "promptSuggestions";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

/** The text of the last message the model was given in a request. */
function lastInput(request: RecordedRequest): string {
  const input = (request.body?.input ?? []) as Array<{ role?: string; content?: Array<{ text?: string }> }>;
  return (
    input
      .at(-1)
      ?.content?.map((c) => c.text ?? "")
      .join("") ?? ""
  );
}

/** The suggestions the client was sent, in order (each update's list of texts). */
function suggestionsSent(a: Adapter, sessionId: string): string[][] {
  return a.updatesOf(sessionId).flatMap((u) => {
    if (u.sessionUpdate !== "session_info_update") return [];
    const value = u._meta?.[SUGGESTION_META_KEY] as { suggestions: Array<{ text: string }> } | undefined;
    return value ? [value.suggestions.map((s) => s.text)] : [];
  });
}

it("off by default: one model request per turn; on: one more, and the suggestion reaches the client", async () => {
  adapter = await startAdapter({ responses: [textResponse("one"), textResponse("two")] });
  await adapter.initialize({ session: { notices: {}, configOptions: { boolean: {} } } });
  const { sessionId, configOptions } = await adapter.newSession();
  expect(configOptions?.find((o) => o.id === "prompt_suggestions")).toMatchObject({
    type: "boolean",
    currentValue: false,
  });

  await adapter.prompt(sessionId, "first");
  await adapter.prompt(sessionId, "second");
  expect(adapter.fake.requests.map(lastInput)).toEqual(["first", "second"]);

  const on = await adapter.agent.request(acp.methods.agent.session.setConfigOption, {
    sessionId,
    configId: "prompt_suggestions",
    type: "boolean",
    value: true,
  });
  expect(on.configOptions.find((o) => o.id === "prompt_suggestions")).toMatchObject({
    type: "boolean",
    currentValue: true,
  });
  adapter.fake.enqueue(
    textResponse("Done. Shall I run the tests?"),
    textResponse('{"suggestion":"yes, run the tests"}'),
  );
  await adapter.prompt(sessionId, "third");
  await waitFor(() => suggestionsSent(adapter!, sessionId).length > 0, "the suggestion");
  expect(suggestionsSent(adapter, sessionId)).toEqual([["yes, run the tests"]]);
  // The extra request is the thread's history with the question after it; turns before it were not sampled.
  const requests = adapter.fake.requests;
  expect(requests).toHaveLength(4);
  expect(requests.slice(0, 3).map(lastInput)).toEqual(["first", "second", "third"]);
  expect(lastInput(requests[3]!)).toMatch(/next message/i);
  expect(JSON.stringify(requests[3]!.body.input)).toContain("Shall I run the tests?");

  // The next prompt clears the suggestion before its turn; the sample leaves no trace in the history.
  adapter.fake.enqueue(textResponse("Tests pass."), textResponse('{"suggestion":"commit it"}'));
  await adapter.prompt(sessionId, "yes, run the tests");
  await waitFor(
    () => suggestionsSent(adapter!, sessionId).length === 3,
    () => `three suggestion updates, got ${JSON.stringify(suggestionsSent(adapter!, sessionId))}`,
  );
  expect(suggestionsSent(adapter, sessionId)).toEqual([["yes, run the tests"], [], ["commit it"]]);
  expect(JSON.stringify(adapter.fake.requests[4]!.body.input)).not.toMatch(/next message/i);
});

it("a client without boolean options gets an off/on choice", async () => {
  adapter = await startAdapter({ responses: [textResponse("Done."), textResponse('{"suggestion":"  "}')] });
  await adapter.initialize();
  const { sessionId, configOptions } = await adapter.newSession();
  expect(configOptions?.find((o) => o.id === "prompt_suggestions")).toMatchObject({
    type: "select",
    currentValue: "off",
    options: [{ value: "off" }, { value: "on" }],
  });
  const on = await adapter.agent.request(acp.methods.agent.session.setConfigOption, {
    sessionId,
    configId: "prompt_suggestions",
    value: "on",
  });
  expect(on.configOptions.find((o) => o.id === "prompt_suggestions")).toMatchObject({ currentValue: "on" });
  await expect(
    adapter.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "prompt_suggestions",
      value: "maybe",
    }),
  ).rejects.toMatchObject({ code: -32602 });
  // A blank prediction is no suggestion: nothing is sent (there was none to clear).
  await adapter.prompt(sessionId, "first");
  await adapter.fake.waitForRequests(2);
  expect(lastInput(adapter.fake.requests[1]!)).toMatch(/next message/i);
  await waitFor(
    () => adapter!.stderr().includes('"msg":"prompt suggestion"'),
    "the adapter to read the blank prediction",
  );
  expect(suggestionsSent(adapter, sessionId)).toEqual([]);
});
