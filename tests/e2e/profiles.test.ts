// Issue 50: Codex profiles. Codex 0.171's `--profile <name>` layers `$CODEX_HOME/<name>.config.toml`
// over config.toml (config.toml's legacy `[profiles.<name>]` tables are no longer applied: Codex
// refuses `--profile x` while one of that name is there). The app-server takes no `--profile`, so
// the session offers them as a config option: "none" and each profile file, applied to the
// session's thread as `--profile` applies it (the profile's keys over config.toml's top level, the
// editor's later choices over both), shown in the mode, model and effort it leads to, and kept
// across session/load and session/resume. What Codex runs with is read from the model's requests.
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { startFakeModel, type FakeModel, type ScriptedResponse } from "../support/fake-model.js";

let adapter: Adapter | undefined;
/** A restarted agent's predecessor: its fake model, Codex home and workspace are the new one's too, so it closes last. */
let predecessor: Adapter | undefined;
/** A fake model a test started itself (the adapter leaves it open). */
let ownFake: FakeModel | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  await predecessor?.close();
  predecessor = undefined;
  await ownFake?.close();
  ownFake = undefined;
});

const done: ScriptedResponse = { items: [{ type: "message", text: "ok" }] };

/** Two profiles as Codex 0.171 reads them, a file that is not one, and a legacy table Codex no longer applies. */
const TWO_PROFILES = {
  "fast.config.toml": ['model_reasoning_effort = "low"', 'approval_policy = "never"', ""].join("\n"),
  "careful.config.toml": ['model = "gpt-5.5"', 'sandbox_mode = "read-only"', ""].join("\n"),
  "notes.config.toml.bak": 'model = "nope"\n',
  "not a profile.config.toml": 'model = "nope"\n',
};
const LEGACY = ["[profiles.legacy]", 'model_reasoning_effort = "high"', ""].join("\n");

async function open(turns: number, opts: { files?: Record<string, string>; extraConfig?: string } = {}) {
  adapter = await startAdapter({
    responses: Array.from({ length: turns }, () => done),
    codexFiles: opts.files ?? TWO_PROFILES,
    ...(opts.extraConfig ? { extraConfig: opts.extraConfig } : {}),
  });
  await adapter.initialize();
  return adapter.newSession();
}

async function restart(): Promise<Adapter> {
  const first = adapter!;
  first.child.kill();
  predecessor = first;
  adapter = await startAdapter({ fake: first.fake, home: first.home, workspace: first.workspace });
  await adapter.initialize();
  return adapter;
}

const option = (options: acp.SessionConfigOption[] | null | undefined, id: string) => options?.find((o) => o.id === id);
const setOption = (sessionId: string, configId: string, value: string) =>
  adapter!.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId, value });

/** What the newest model request ran with: its model, reasoning effort and Codex's permissions instructions. */
function lastRequest(a: Adapter): { model: unknown; effort: unknown; permissions: string } {
  const body = a.fake.requests.at(-1)!.body as {
    model?: unknown;
    reasoning?: { effort?: unknown };
    input: Array<{ content?: Array<{ text?: string }> }>;
  };
  const texts = body.input
    .flatMap((item) => (item.content ?? []).map((c) => c.text ?? ""))
    .filter((t) => t.includes("`sandbox_mode` is"));
  return { model: body.model, effort: body.reasoning?.effort, permissions: texts.at(-1) ?? "" };
}

async function turn(sessionId: string) {
  expect((await adapter!.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
  return lastRequest(adapter!);
}

async function refusalOf(request: Promise<unknown>): Promise<string> {
  await expect(request).rejects.toMatchObject({ code: -32602 });
  return request.catch(
    (err: { message: string; data?: unknown }) => `${err.message} ${JSON.stringify(err.data)}`,
  ) as Promise<string>;
}

describe("profiles", () => {
  it("the option lists none and CODEX_HOME's two <name>.config.toml profiles (not config.toml's legacy tables); choosing one changes the next turn as --profile would; the editor's later choice stays on top; another profile or none puts back what the first one set", async () => {
    const session = await open(4, { extraConfig: LEGACY });
    const { sessionId } = session;
    expect(option(session.configOptions, "profile")).toMatchObject({
      type: "select",
      currentValue: "none",
      options: [{ value: "none" }, { value: "careful" }, { value: "fast" }],
    });
    expect(option(session.configOptions, "reasoning_effort")?.currentValue).not.toBe("low");
    expect(session.modes?.currentModeId).toBe("auto");

    // fast: effort low, approvals never over config.toml's workspace-write (no preset: the Custom mode).
    let res = await setOption(sessionId, "profile", "fast");
    expect(option(res.configOptions, "profile")).toMatchObject({ currentValue: "fast" });
    expect(option(res.configOptions, "reasoning_effort")).toMatchObject({ currentValue: "low" });
    expect(option(res.configOptions, "mode")).toMatchObject({ currentValue: "custom" });
    expect(adapter!.updatesOf(sessionId)).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "custom",
    });
    let sent = await turn(sessionId);
    expect(sent).toMatchObject({ model: "fake-model", effort: "low" });
    expect(sent.permissions).toMatch(/never/);

    // The editor's choice made after the profile stays on top of it.
    await setOption(sessionId, "reasoning_effort", "high");
    expect((await turn(sessionId)).effort).toBe("high");

    // careful: its model, read-only; fast's approvals go back to config.toml's, the editor's effort stays.
    res = await setOption(sessionId, "profile", "careful");
    expect(option(res.configOptions, "model")).toMatchObject({ currentValue: "gpt-5.5" });
    expect(option(res.configOptions, "mode")).toMatchObject({ currentValue: "read-only" });
    expect(option(res.configOptions, "reasoning_effort")).toMatchObject({ currentValue: "high" });
    sent = await turn(sessionId);
    expect(sent).toMatchObject({ model: "gpt-5.5", effort: "high" });
    expect(sent.permissions).toContain("`sandbox_mode` is `read-only`");

    // none: back to config.toml's own (Auto, fake-model), the editor's effort still.
    res = await setOption(sessionId, "profile", "none");
    expect(option(res.configOptions, "mode")).toMatchObject({ currentValue: "auto" });
    expect(option(res.configOptions, "model")).toMatchObject({ currentValue: "fake-model" });
    sent = await turn(sessionId);
    expect(sent.model).toBe("fake-model");
    expect(sent.permissions).toContain("`sandbox_mode` is `workspace-write`");
  });

  it("a chosen profile survives session/load, in the same agent and in a new agent process, and session/resume; the next turn keeps it", async () => {
    const { sessionId } = await open(4);
    await setOption(sessionId, "profile", "fast");
    expect((await turn(sessionId)).effort).toBe("low");
    const { workspace } = adapter!;

    const same = await adapter!.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(option(same.configOptions, "profile")).toMatchObject({ currentValue: "fast" });
    expect(option(same.configOptions, "reasoning_effort")).toMatchObject({ currentValue: "low" });

    await restart();
    const loaded = await adapter!.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(option(loaded.configOptions, "profile")).toMatchObject({ currentValue: "fast" });
    expect(option(loaded.configOptions, "reasoning_effort")).toMatchObject({ currentValue: "low" });
    expect(loaded.modes?.currentModeId).toBe("custom");
    let sent = await turn(sessionId);
    expect(sent.effort).toBe("low");
    expect(sent.permissions).toMatch(/never/);

    await restart();
    const resumed = await adapter!.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(option(resumed.configOptions, "profile")).toMatchObject({ currentValue: "fast" });
    expect(option(resumed.configOptions, "reasoning_effort")).toMatchObject({ currentValue: "low" });
    sent = await turn(sessionId);
    expect(sent.effort).toBe("low");

    // Back to none: a load after that shows none.
    await setOption(sessionId, "profile", "none");
    await turn(sessionId);
    await restart();
    const again = await adapter!.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(option(again.configOptions, "profile")).toMatchObject({ currentValue: "none" });
  });

  it("a profile Codex refuses is a clear error naming the profile and the key; the session stays as it was", async () => {
    const files = {
      ...TWO_PROFILES,
      "far.config.toml": 'model_provider = "nowhere"\n',
      "broken.config.toml": "model = [1\n",
      "dup.config.toml": 'model_reasoning_effort = "low"\n',
    };
    const session = await open(1, {
      files,
      extraConfig: ["[profiles.dup]", 'model_reasoning_effort = "high"', ""].join("\n"),
    });
    const { sessionId } = session;
    expect(option(session.configOptions, "profile")).toHaveProperty(
      "options",
      expect.arrayContaining([expect.objectContaining({ value: "far" }), expect.objectContaining({ value: "broken" })]),
    );

    const far = await refusalOf(setOption(sessionId, "profile", "far"));
    expect(far).toContain('"far"');
    expect(far).toContain("model_provider");
    expect(far).toContain("nowhere");

    const broken = await refusalOf(setOption(sessionId, "profile", "broken"));
    expect(broken).toContain('"broken"');
    expect(broken).toContain("broken.config.toml");
    expect(broken).toMatch(/line \d+/);

    // As `codex --profile dup` says: the legacy table of that name in config.toml must go first.
    const dup = await refusalOf(setOption(sessionId, "profile", "dup"));
    expect(dup).toContain('"dup"');
    expect(dup).toContain("[profiles.dup]");

    await refusalOf(setOption(sessionId, "profile", "nope"));
    const res = await setOption(sessionId, "reasoning_effort", "high");
    expect(option(res.configOptions, "profile")).toMatchObject({ currentValue: "none" });
    expect((await turn(sessionId)).effort).toBe("high");
  });

  it("a profile's model provider applies to a session not prompted yet (its thread starts anew with it); after the first turn Codex cannot change it, and says so", async () => {
    const fake = await startFakeModel([done, done]);
    ownFake = fake;
    const proxy = [
      "[model_providers.proxy]",
      'name = "proxy"',
      `base_url = ${JSON.stringify(fake.url)}`,
      'env_key = "FAKE_API_KEY"',
      'wire_api = "responses"',
      'http_headers = { "X-Profile" = "proxy" }',
      "request_max_retries = 0",
      "stream_max_retries = 0",
      "supports_websockets = false",
      "",
    ].join("\n");
    adapter = await startAdapter({
      fake,
      extraConfig: proxy,
      codexFiles: { "viaproxy.config.toml": 'model_provider = "proxy"\n' },
    });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await setOption(sessionId, "profile", "viaproxy");
    await turn(sessionId);
    expect(adapter.fake.requests.at(-1)!.headers["x-profile"]).toBe("proxy");

    const second = await adapter.newSession();
    await turn(second.sessionId);
    expect(adapter.fake.requests.at(-1)!.headers["x-profile"]).toBeUndefined();
    const refused = setOption(second.sessionId, "profile", "viaproxy");
    await expect(refused).rejects.toMatchObject({ code: -32602 });
    await expect(refused).rejects.toThrow(/viaproxy[\s\S]*model_provider/);
  });

  it("without profile files there is no profile option", async () => {
    const session = await open(0, { files: {}, extraConfig: LEGACY });
    expect(option(session.configOptions, "profile")).toBeUndefined();
  });
});
