// Issue 28: the legacy model selector, for clients that read no config options. Both peers answer
// every session/new, load, resume and fork with `models` (SessionModelState: one entry per model
// and reasoning effort, Zed's adapter's ids "<model>/<effort>") and take the unstable
// `session/set_model`; the official adapter's "<model>[<effort>]" is taken too. A model set this
// way is the session's model from the next turn, and the config options follow it.
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { textResponse } from "../support/fake-model.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

type ModelState = {
  currentModelId: string;
  availableModels: Array<{ modelId: string; name: string; description?: string | null }>;
};
const modelsOf = (response: unknown): ModelState | undefined => (response as { models?: ModelState }).models;
const setModel = (sessionId: string, modelId: string) =>
  adapter!.agent.request("session/set_model", { sessionId, modelId });
type ConfigUpdate = Extract<acp.SessionUpdate, { sessionUpdate: "config_option_update" }>;
const configUpdates = (sessionId: string): ConfigUpdate[] =>
  adapter!.updatesOf(sessionId).filter((u): u is ConfigUpdate => u.sessionUpdate === "config_option_update");
const current = (update: ConfigUpdate | undefined, id: string): unknown =>
  update?.configOptions.find((o) => o.id === id)?.currentValue;

/** A client that reads no config options: nothing under `session` but notices. */
async function start(turns = 0) {
  adapter = await startAdapter({ responses: Array.from({ length: turns }, () => textResponse("ok")) });
  await adapter.initialize();
  return adapter.newSession();
}

describe("legacy models", () => {
  it("session/new answers models: every model with each of its reasoning efforts as <model>/<effort>, the session's current", async () => {
    const session = await start();
    const models = modelsOf(session);
    expect(models?.currentModelId).toBe("fake-model/medium");
    const ids = models!.availableModels.map((m) => m.modelId);
    for (const effort of ["low", "medium", "high", "xhigh"]) {
      expect(ids).toContain(`fake-model/${effort}`);
      expect(ids).toContain(`gpt-5.5/${effort}`);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(models!.availableModels.find((m) => m.modelId === "gpt-5.5/high")).toMatchObject({
      name: expect.stringMatching(/\(high\)$/),
    });
    // The config options answer the same session as it is.
    expect(session.configOptions?.find((o) => o.id === "model")?.currentValue).toBe("fake-model");
  });

  it("a client that declares config option capabilities reads the options: no models in its answer, and set_model still works", async () => {
    adapter = await startAdapter({ responses: [textResponse("ok")] });
    await adapter.initialize({ session: { notices: {}, configOptions: {} } });
    const session = await adapter.newSession();
    expect(session.configOptions?.find((o) => o.id === "model")).toBeDefined();
    expect(modelsOf(session)).toBeUndefined();
    await setModel(session.sessionId, "gpt-5.5/low");
    await adapter.prompt(session.sessionId, "go");
    expect(adapter.fake.requests[0]!.body).toMatchObject({ model: "gpt-5.5", reasoning: { effort: "low" } });
  });

  it("session/set_model switches model and effort from the next turn, and clients of config options hear the change", async () => {
    const { sessionId } = await start(2);
    await adapter!.prompt(sessionId, "first");
    expect(adapter!.fake.requests[0]!.body.model).toBe("fake-model");
    expect(await setModel(sessionId, "gpt-5.5/high")).toEqual({});
    await waitFor(
      () => current(configUpdates(sessionId).at(-1), "model") === "gpt-5.5",
      "a config_option_update with the new model",
    );
    expect(current(configUpdates(sessionId).at(-1), "reasoning_effort")).toBe("high");
    await adapter!.prompt(sessionId, "second");
    expect(adapter!.fake.requests[1]!.body.model).toBe("gpt-5.5");
    expect(adapter!.fake.requests[1]!.body.reasoning).toMatchObject({ effort: "high" });
  });

  it("takes the official adapter's <model>[<effort>] and a bare model (its effort kept when the model has it)", async () => {
    const { sessionId } = await start(2);
    await setModel(sessionId, "gpt-5.5[low]");
    await adapter!.prompt(sessionId, "one");
    expect(adapter!.fake.requests[0]!.body).toMatchObject({ model: "gpt-5.5", reasoning: { effort: "low" } });
    await setModel(sessionId, "fake-model");
    await adapter!.prompt(sessionId, "two");
    expect(adapter!.fake.requests[1]!.body).toMatchObject({ model: "fake-model", reasoning: { effort: "low" } });
  });

  it("an id the session does not offer is invalid params naming what exists, and nothing changes", async () => {
    const { sessionId } = await start();
    for (const bad of ["no-such-model", "gpt-5.5/ludicrous", "gpt-5.5[ludicrous]", ""]) {
      const err = await setModel(sessionId, bad).then(
        () => undefined,
        (e: unknown) => e as { code?: number; message?: string; data?: unknown },
      );
      expect(err?.code, bad).toBe(-32602);
      expect(JSON.stringify(err), bad).toContain("gpt-5.5/high");
    }
    await expect(adapter!.agent.request("session/set_model", { sessionId })).rejects.toMatchObject({ code: -32602 });
    await expect(setModel("no-such-session", "gpt-5.5/high")).rejects.toMatchObject({ code: -32002 });
    expect(configUpdates(sessionId)).toEqual([]);
  });

  it("a model chosen by config option shows in the next answer's models; load, resume and fork answer models too", async () => {
    const { sessionId } = await start(1);
    await adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "gpt-5.5",
    });
    await adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "reasoning_effort",
      value: "xhigh",
    });
    await adapter!.prompt(sessionId, "one turn, so Codex stores the thread");
    const resumed = await adapter!.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: adapter!.workspace,
      mcpServers: [],
    });
    expect(modelsOf(resumed)?.currentModelId).toBe("gpt-5.5/xhigh");
    // A fork runs on what Codex gives the new thread; its models say the same as its config options.
    const fork = await adapter!.agent.request<acp.NewSessionResponse>("session/fork", {
      sessionId,
      cwd: adapter!.workspace,
      mcpServers: [],
    });
    const forkOption = (id: string) => fork.configOptions?.find((o) => o.id === id)?.currentValue;
    expect(modelsOf(fork)?.currentModelId).toBe(
      `${String(forkOption("model"))}/${String(forkOption("reasoning_effort"))}`,
    );
    await adapter!.agent.request(acp.methods.agent.session.close, { sessionId });
    const loaded = await adapter!.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: adapter!.workspace,
      mcpServers: [],
    });
    expect(modelsOf(loaded)?.currentModelId).toBe("gpt-5.5/xhigh");
    expect(modelsOf(loaded)?.availableModels.length).toBeGreaterThan(4);
  });
});
