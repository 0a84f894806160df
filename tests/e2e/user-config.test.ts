// Issue 28: the user's config.toml is the starting point. A new session opens in the mode that
// matches what Codex itself would use for that cwd (approval_policy, sandbox_mode,
// [sandbox_workspace_write], model_reasoning_effort), or in an honest "Custom (config.toml)" mode
// when no preset matches; switching modes changes only what the mode means and keeps the user's
// extra writable roots and network choice. What Codex applies is read from the model request it
// sends (its permissions instructions), not from what the adapter says.
import { afterEach, describe, expect, it } from "vitest";
import { readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import type { ScriptedResponse } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

const done: ScriptedResponse = { items: [{ type: "message", text: "ok" }] };

async function open(userConfig: string, extraConfig?: string, turns = 0) {
  adapter = await startAdapter({
    responses: Array.from({ length: turns }, () => done),
    userConfig,
    ...(extraConfig ? { extraConfig } : {}),
  });
  await adapter.initialize();
  return adapter.newSession();
}

/** The newest permissions instructions Codex gave the model: what the sandbox and approvals are for this turn. */
function permissionsOfLastRequest(a: Adapter): string {
  const input = a.fake.requests.at(-1)!.body.input as Array<{ role?: string; content?: Array<{ text?: string }> }>;
  const texts = input
    .flatMap((item) => (item.content ?? []).map((c) => c.text ?? ""))
    .filter((t) => t.includes("`sandbox_mode` is"));
  return texts.at(-1) ?? "";
}

async function turn(sessionId: string): Promise<string> {
  expect((await adapter!.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
  return permissionsOfLastRequest(adapter!);
}

const setMode = (sessionId: string, modeId: string) =>
  adapter!.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId });

describe("config.toml is the starting point", () => {
  it("started in the project's folder (as an editor starts it), the first session takes the config/read written as codex spawned, and opens in the mode it says", async () => {
    adapter = await startAdapter({
      responses: [done],
      userConfig: 'approval_policy = "on-request"\nsandbox_mode = "read-only"',
      inWorkspace: true,
    });
    await adapter.initialize();
    const session = await adapter.newSession();
    expect(session.modes?.currentModeId).toBe("read-only");
    expect(adapter.stderr()).toContain("configuration from the config/read written as codex spawned");
    expect(await turn(session.sessionId)).toContain("`sandbox_mode` is `read-only`");
  });

  it("a config.toml changed after codex spawned is read again: the early answer is never a stale one", async () => {
    adapter = await startAdapter({
      responses: [done],
      userConfig: 'approval_policy = "on-request"\nsandbox_mode = "read-only"',
      inWorkspace: true,
    });
    // Answered once the agent is loaded, so after the bin wrote its config/read (before loading it).
    await adapter.initialize();
    const config = adapter.home.configPath;
    await writeFile(
      config,
      (await readFile(config, "utf8"))
        .replace('sandbox_mode = "read-only"', 'sandbox_mode = "danger-full-access"')
        .replace('approval_policy = "on-request"', 'approval_policy = "never"'),
    );
    await utimes(config, new Date(), new Date(Date.now() + 5000));
    const session = await adapter.newSession();
    expect(session.modes?.currentModeId).toBe("full-access");
    expect(adapter.stderr()).not.toContain("configuration from the config/read written as codex spawned");
    expect(await turn(session.sessionId)).toContain("`sandbox_mode` is `danger-full-access`");
  });

  it("approval_policy never + danger-full-access opens in Full Access", async () => {
    const session = await open('approval_policy = "never"\nsandbox_mode = "danger-full-access"', undefined, 1);
    expect(session.modes?.currentModeId).toBe("full-access");
    expect(session.modes?.availableModes.map((m) => m.id)).not.toContain("custom");
    expect(await turn(session.sessionId)).toContain("`sandbox_mode` is `danger-full-access`");
  });

  it("on-request + read-only opens in Read Only", async () => {
    const session = await open('approval_policy = "on-request"\nsandbox_mode = "read-only"', undefined, 1);
    expect(session.modes?.currentModeId).toBe("read-only");
    expect(await turn(session.sessionId)).toContain("`sandbox_mode` is `read-only`");
  });

  it("no approval or sandbox setting: Auto, with the network off as before", async () => {
    const session = await open("", undefined, 1);
    expect(session.modes?.currentModeId).toBe("auto");
    const permissions = await turn(session.sessionId);
    expect(permissions).toContain("`sandbox_mode` is `workspace-write`");
    expect(permissions).toContain("Network access is restricted");
  });

  it("workspace-write with extra writable_roots and network_access keeps both through a switch to read-only and back to auto", async () => {
    const extraRoot = path.join("/var/tmp", `cca-extra-root-${process.pid}`);
    const session = await open(
      'approval_policy = "on-request"\nsandbox_mode = "workspace-write"',
      `[sandbox_workspace_write]\nwritable_roots = [${JSON.stringify(extraRoot)}]\nnetwork_access = true`,
      3,
    );
    const { sessionId } = session;
    expect(session.modes?.currentModeId).toBe("auto");
    let permissions = await turn(sessionId);
    expect(permissions).toContain("Network access is enabled");
    expect(permissions).toContain(extraRoot);

    await setMode(sessionId, "read-only");
    permissions = await turn(sessionId);
    expect(permissions).toContain("`sandbox_mode` is `read-only`");

    await setMode(sessionId, "auto");
    permissions = await turn(sessionId);
    expect(permissions).toContain("`sandbox_mode` is `workspace-write`");
    expect(permissions).toContain("Network access is enabled");
    expect(permissions).toContain(extraRoot);
  });

  it("a combination no preset describes shows as its own mode, selectable again after a switch", async () => {
    const session = await open('approval_policy = "never"\nsandbox_mode = "read-only"', undefined, 3);
    const { sessionId } = session;
    expect(session.modes?.currentModeId).toBe("custom");
    const custom = session.modes?.availableModes.find((m) => m.id === "custom");
    expect(custom).toMatchObject({ name: "Custom (config.toml)" });
    expect(custom?.description).toMatch(/never/);
    expect(custom?.description).toMatch(/read-only/);
    const modeOption = session.configOptions?.find((o) => o.id === "mode");
    expect(modeOption).toMatchObject({ currentValue: "custom" });
    expect(JSON.stringify(modeOption)).toContain("Custom (config.toml)");

    let permissions = await turn(sessionId);
    expect(permissions).toContain("`sandbox_mode` is `read-only`");
    expect(permissions).toContain("Approval policy is currently never");

    await setMode(sessionId, "auto");
    permissions = await turn(sessionId);
    expect(permissions).toContain("`sandbox_mode` is `workspace-write`");
    expect(permissions).not.toContain("Approval policy is currently never");

    await setMode(sessionId, "custom");
    permissions = await turn(sessionId);
    expect(permissions).toContain("`sandbox_mode` is `read-only`");
    expect(permissions).toContain("Approval policy is currently never");
    expect(adapter!.updatesOf(sessionId)).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "custom",
    });
  });

  it("model_reasoning_effort from config.toml is the session's effort, and the model is asked with it", async () => {
    const session = await open('model_reasoning_effort = "high"', undefined, 1);
    const effort = session.configOptions?.find((o) => o.id === "reasoning_effort" || o.id === "effort");
    expect(effort).toMatchObject({ currentValue: "high" });
    await turn(session.sessionId);
    expect(adapter!.fake.requests.at(-1)!.body.reasoning).toMatchObject({ effort: "high" });
  });
});

describe("a config.toml Codex cannot read", () => {
  it("session/new names the file and the place of the error, not a sign-in the user does not need", async () => {
    adapter = await startAdapter({ userConfig: "this is = = not toml" });
    await adapter.initialize();
    const refusal = (await adapter.newSession().then(
      () => undefined,
      (err: unknown) => err,
    )) as { code?: number; message?: string } | undefined;
    expect(refusal?.code).not.toBe(-32000); // ACP's auth_required
    expect(refusal?.message).toMatch(/config\.toml:\d+:\d+/);
    expect(refusal?.message).toContain("fix it");
  });
});

describe("the user's own choices that the catalog does not list", () => {
  const options = { session: { configOptions: {} } } as acp.ClientCapabilities;
  const optionOf = (list: acp.SessionConfigOption[] | null | undefined, id: string) =>
    list?.find((o) => o.id === id) as { currentValue: unknown; options: Array<{ value: string }> } | undefined;

  it("config.toml's reasoning effort (\"minimal\") is one of the option's values, and can be chosen again after another", async () => {
    adapter = await startAdapter({ userConfig: 'model_reasoning_effort = "minimal"' });
    await adapter.initialize(options);
    const { sessionId, configOptions } = await adapter.newSession();
    const effort = optionOf(configOptions, "reasoning_effort");
    expect(effort?.currentValue).toBe("minimal");
    expect(effort?.options.map((o) => o.value)).toContain("minimal");
    const set = (configId: string, value: string) =>
      adapter!.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId, value });
    await set("reasoning_effort", "high");
    const back = await set("reasoning_effort", "minimal");
    expect(optionOf(back.configOptions, "reasoning_effort")?.currentValue).toBe("minimal");
    await expect(set("reasoning_effort", "bogus")).rejects.toThrow(/not "bogus"/);
  });

  it("config.toml's model outside the catalog stays a choice after a switch to another (config options and session/set_model)", async () => {
    adapter = await startAdapter({});
    await writeFile(
      adapter.home.configPath,
      (await readFile(adapter.home.configPath, "utf8")).replace(/^model = .*$/m, 'model = "my-local-model"'),
    );
    await adapter.initialize(options);
    const { sessionId } = await adapter.newSession();
    const set = (value: string) =>
      adapter!.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "model", value });
    const switched = await set("fake-model");
    expect(optionOf(switched.configOptions, "model")?.options.map((o) => o.value)).toContain("my-local-model");
    const back = await set("my-local-model");
    expect(optionOf(back.configOptions, "model")?.currentValue).toBe("my-local-model");
    await set("fake-model");
    await expect(
      adapter.agent.request("session/set_model", { sessionId, modelId: "my-local-model" }),
    ).resolves.toBeDefined();
    await expect(set("someone-elses-model")).rejects.toThrow(/Unknown model/);
  });
});
