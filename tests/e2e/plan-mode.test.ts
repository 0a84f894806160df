// Issue 12: plan mode (Codex's collaboration modes as a config option and /plan) and questions
// (Codex's request_user_input, offered in plan mode) asked through ACP elicitation forms.
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { toolCall, type ScriptedResponse } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const say = (text: string): ScriptedResponse => ({ items: [{ type: "message", text }] });
const ask: ScriptedResponse = {
  items: [
    toolCall(
      "request_user_input",
      {
        questions: [
          {
            id: "color",
            header: "Color",
            question: "Which color?",
            options: [
              { label: "Red (Recommended)", description: "warm" },
              { label: "Blue", description: "cool" },
            ],
          },
        ],
      },
      { callId: "q1" },
    ),
  ],
};

/** Developer messages of one model request (Codex puts the collaboration mode's instructions there). */
function developerText(body: Record<string, unknown>): string {
  const input = body.input as Array<{ role?: string; content?: Array<{ text?: string }> }>;
  return input
    .filter((i) => i.role === "developer")
    .flatMap((i) => i.content?.map((c) => c.text ?? "") ?? [])
    .join("\n");
}

function toolOutput(body: Record<string, unknown>, callId: string): string {
  const input = body.input as Array<{ type: string; call_id?: string; output?: unknown }>;
  const out = input.find((i) => i.type === "function_call_output" && i.call_id === callId)?.output;
  return typeof out === "string" ? out : JSON.stringify(out);
}

describe("plan mode", () => {
  it("is a config option from Codex's collaboration modes; choosing plan changes what the model receives", async () => {
    adapter = await startAdapter({ responses: [say("normal"), say("planning")] });
    await adapter.initialize();
    const { sessionId, configOptions } = await adapter.newSession();
    expect(configOptions?.find((o) => o.id === "collaboration_mode")).toMatchObject({
      type: "select",
      category: "_collaboration_mode",
      currentValue: "default",
      options: [
        expect.objectContaining({ value: "plan", name: "Plan" }),
        expect.objectContaining({ value: "default", name: "Default" }),
      ],
    });
    await adapter.prompt(sessionId, "before");
    const res = await adapter.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "collaboration_mode",
      value: "plan",
    });
    expect(res.configOptions.find((o) => o.id === "collaboration_mode")?.currentValue).toBe("plan");
    await adapter.prompt(sessionId, "after");
    expect(developerText(adapter.fake.requests[0]!.body)).not.toContain("Plan Mode");
    expect(developerText(adapter.fake.requests[1]!.body)).toContain("# Plan Mode");
    // The model follows the session's model and effort in plan mode too.
    expect(adapter.fake.requests[1]!.body.model).toBe(adapter.fake.requests[0]!.body.model);
  });

  it("an unknown collaboration mode is refused, naming the ones there are", async () => {
    adapter = await startAdapter();
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await expect(
      adapter.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "collaboration_mode",
        value: "yolo",
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("available: plan, default"),
    });
  });

  it("/plan turns it on (the client hears config_option_update), /plan <text> plans that, /plan off leaves", async () => {
    adapter = await startAdapter({ responses: [say("a plan"), say("back to work")] });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "/plan")).stopReason).toBe("end_turn");
    expect(adapter.fake.requests).toHaveLength(0);
    const update = adapter.updatesOf(sessionId).find((u) => u.sessionUpdate === "config_option_update");
    expect(
      update && "configOptions" in update
        ? update.configOptions.find((o) => o.id === "collaboration_mode")?.currentValue
        : undefined,
    ).toBe("plan");
    await adapter.prompt(sessionId, "/plan add a cache");
    expect(developerText(adapter.fake.requests[0]!.body)).toContain("# Plan Mode");
    expect(JSON.stringify(adapter.fake.requests[0]!.body.input)).toContain("add a cache");
    await adapter.prompt(sessionId, "/plan off");
    await adapter.prompt(sessionId, "now build it");
    // The history keeps the plan-mode message; the newest collaboration-mode message is not plan mode.
    const modes = developerText(adapter.fake.requests[1]!.body).split("<collaboration_mode>").slice(1);
    expect(modes.length).toBeGreaterThanOrEqual(2);
    expect(modes.at(-1)).not.toContain("Plan Mode");
  });
});

describe("/plan among queued prompts", () => {
  it("switches in its place: a prompt sent before it, still waiting, runs as it was sent", async () => {
    adapter = await startAdapter({
      responses: [{ ...say("one two three four"), delayMs: 150 }, say("queued answer"), say("a plan")],
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    const running = adapter.prompt(sessionId, "a long one");
    await adapter.waitForLine((m) => JSON.stringify(m).includes('"agent_message_chunk"'));
    const queued = adapter.prompt(sessionId, "sent before /plan");
    const plan = adapter.prompt(sessionId, "/plan design it");
    await Promise.all([running, queued, plan]);
    expect(developerText(adapter.fake.requests[1]!.body)).not.toContain("# Plan Mode");
    expect(JSON.stringify(adapter.fake.requests[1]!.body.input)).toContain("sent before /plan");
    expect(developerText(adapter.fake.requests[2]!.body)).toContain("# Plan Mode");
  });
});

describe("questions", () => {
  it("are asked through elicitation/create as a form; the answer reaches the model", async () => {
    const asked: acp.CreateElicitationRequest[] = [];
    adapter = await startAdapter({
      responses: [ask, say("blue it is")],
      setupClient: (app) =>
        app.onRequest(acp.methods.client.elicitation.create, ({ params }) => {
          asked.push(params);
          return { action: "accept", content: { color: "Blue" } };
        }),
    });
    await adapter.initialize({ elicitation: { form: {} } });
    const { sessionId } = await adapter.newSession();
    await adapter.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "collaboration_mode",
      value: "plan",
    });
    expect((await adapter.prompt(sessionId, "pick a color")).stopReason).toBe("end_turn");
    expect(asked).toEqual([
      {
        sessionId,
        mode: "form",
        message: "Which color?",
        requestedSchema: {
          type: "object",
          properties: {
            color: {
              type: "string",
              title: "Color",
              description: "Which color?",
              oneOf: [
                { const: "Red (Recommended)", title: "Red (Recommended)", description: "warm" },
                { const: "Blue", title: "Blue", description: "cool" },
              ],
            },
            color__other: { type: "string", title: "Color: another answer", description: "Instead of a choice above" },
          },
          required: [],
        },
      },
    ]);
    expect(JSON.parse(toolOutput(adapter.fake.requests[1]!.body, "q1"))).toEqual({
      answers: { color: { answers: ["Blue"] } },
    });
  });

  it("a declined form gives the model no answers, and the turn goes on", async () => {
    adapter = await startAdapter({
      responses: [ask, say("fine")],
      setupClient: (app) => app.onRequest(acp.methods.client.elicitation.create, () => ({ action: "decline" })),
    });
    await adapter.initialize({ elicitation: { form: {} } });
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "/plan");
    expect((await adapter.prompt(sessionId, "pick")).stopReason).toBe("end_turn");
    expect(JSON.parse(toolOutput(adapter.fake.requests[1]!.body, "q1"))).toEqual({ answers: {} });
  });

  it("a client without forms is not asked; the model is told the user cannot be asked", async () => {
    let asked = 0;
    adapter = await startAdapter({
      responses: [ask, say("assumed red")],
      setupClient: (app) =>
        app.onRequest(acp.methods.client.elicitation.create, () => {
          asked++;
          return { action: "cancel" };
        }),
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "/plan");
    expect((await adapter.prompt(sessionId, "pick")).stopReason).toBe("end_turn");
    expect(asked).toBe(0);
    expect(toolOutput(adapter.fake.requests[1]!.body, "q1")).toMatch(/cannot be asked/);
  });

  it("cancel while the form is open ends the prompt cancelled", async () => {
    let opened!: () => void;
    const formOpen = new Promise<void>((r) => (opened = r));
    adapter = await startAdapter({
      responses: [ask, say("late")],
      setupClient: (app) =>
        app.onRequest(acp.methods.client.elicitation.create, () => {
          opened();
          return new Promise<acp.CreateElicitationResponse>(() => undefined);
        }),
    });
    await adapter.initialize({ elicitation: { form: {} } });
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "/plan");
    const pending = adapter.prompt(sessionId, "pick");
    await formOpen;
    await adapter.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await pending).stopReason).toBe("cancelled");
  });
});
