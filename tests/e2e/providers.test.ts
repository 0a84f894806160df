// Issue 28: ACP's unstable providers/list, providers/set and providers/disable over Codex's model
// providers, with the real codex and fake models on 127.0.0.1. A provider set by the client routes
// the sessions opened after it (Codex's per-thread config), is held by the agent for its lifetime
// and never written to disk (ACP: process-scoped), so it outlives a codex restart; its headers
// reach the model and nothing else (no answer, no log, no file).
import { mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { createCodexHome, startFakeModel, textResponse, type FakeModel } from "../../tools/fake-model/index.js";
import { killCodex, messageText, startAdapter, type Adapter } from "../support/adapter.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function fakeModel(...responses: Parameters<FakeModel["enqueue"]>): Promise<FakeModel> {
  const fake = await startFakeModel(responses);
  opened.push(fake);
  return fake;
}

async function adapterWith(opts: Parameters<typeof startAdapter>[0]): Promise<Adapter> {
  const adapter = await startAdapter(opts);
  opened.push(adapter);
  await adapter.initialize();
  return adapter;
}

/** A second provider in config.toml, signed with no key (Codex sends the client's Authorization as is). */
const secondProvider = (url: string): string =>
  [
    `[model_providers.second]`,
    `name = "second"`,
    `base_url = "${url}"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    `supports_websockets = false`,
  ].join("\n");

const list = (a: Adapter): Promise<acp.ListProvidersResponse> =>
  a.agent.request<acp.ListProvidersResponse>("providers/list", {});
const set = (a: Adapter, params: acp.SetProviderRequest): Promise<acp.SetProviderResponse> =>
  a.agent.request<acp.SetProviderResponse>("providers/set", params);
const disable = (a: Adapter, providerId: string): Promise<acp.DisableProviderResponse> =>
  a.agent.request<acp.DisableProviderResponse>("providers/disable", { providerId });
const providerOf = async (a: Adapter, id: string): Promise<acp.ProviderInfo | undefined> =>
  (await list(a)).providers.find((p) => p.providerId === id);

/** Every file under `dir` that holds `needle` (sqlite databases and logs included). */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes?.includes(needle)) found.push(file);
  }
  return found;
}

describe("providers (ACP unstable) over Codex's model providers", () => {
  it("initialize advertises them; list shows Codex's providers: the one every thread uses first and required, then the others", async () => {
    const other = await fakeModel();
    const adapter = await startAdapter({ extraConfig: secondProvider(other.url) });
    opened.push(adapter);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the unstable schema's InitializeResponse (with providers) is not the stable one initialize() returns; the rule takes them for one
    const init = (await adapter.initialize()) as acp.InitializeResponse;
    expect(init.agentCapabilities?.providers).toEqual({});

    const { providers } = await list(adapter);
    expect(providers[0]).toEqual({
      providerId: "fake",
      supported: ["openai"],
      required: true,
      current: { apiType: "openai", baseUrl: adapter.fake.url },
    });
    expect(providers).toContainEqual({
      providerId: "second",
      supported: ["openai"],
      required: false,
      current: { apiType: "openai", baseUrl: other.url },
    });
    // Codex's built-in OpenAI provider shows no address of its own: the public API's.
    expect(providers).toContainEqual({
      providerId: "openai",
      supported: ["openai"],
      required: false,
      current: { apiType: "openai", baseUrl: "https://api.openai.com/v1" },
    });
  });

  it("set points a provider at another model: the next session's turns go there with the client's headers, which appear in no answer, log or file", async () => {
    const SECRET = "gw-secret-7f3a91c2";
    const gateway = await fakeModel(textResponse("answered by the gateway"));
    const adapter = await adapterWith({ responses: [textResponse("answered by the configured model")] });
    const configBefore = await readFile(adapter.home.configPath, "utf8");

    expect(
      await set(adapter, {
        providerId: "fake",
        apiType: "openai",
        baseUrl: gateway.url,
        headers: { "X-Gateway-Token": SECRET },
      }),
    ).toEqual({});
    const after = await list(adapter);
    expect(after.providers.find((p) => p.providerId === "fake")?.current).toEqual({
      apiType: "openai",
      baseUrl: gateway.url,
    });
    expect(JSON.stringify(after)).not.toContain(SECRET);

    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "where do you run?")).stopReason).toBe("end_turn");
    expect(messageText(adapter.updatesOf(sessionId))).toBe("answered by the gateway");
    expect(adapter.fake.requests).toHaveLength(0);
    expect(gateway.requests).toHaveLength(1);
    expect(gateway.requests[0]!.headers["x-gateway-token"]).toBe(SECRET);
    // The rest of the provider is Codex's as configured: its key (env_key) still signs the requests.
    expect(gateway.requests[0]!.headers.authorization).toBe("Bearer fake-key");

    // Held by the agent only: config.toml is as it was, no file of Codex's holds the header, no log line either (debug level).
    expect(await readFile(adapter.home.configPath, "utf8")).toBe(configBefore);
    expect(await filesHolding(adapter.home.base, SECRET)).toEqual([]);
    expect(adapter.stderr()).toContain("provider set");
    expect(adapter.stderr()).not.toContain(SECRET);
    expect(adapter.stdoutLines.filter((l) => l.includes(SECRET))).toEqual([]);
  });

  it("refuses what it cannot route as asked (invalid params) and changes nothing", async () => {
    const adapter = await adapterWith({ responses: [textResponse("still the configured model")] });
    const configBefore = await readFile(adapter.home.configPath, "utf8");
    const listBefore = await list(adapter);
    const refused: Array<[string, acp.SetProviderRequest]> = [
      ["http off loopback", { providerId: "fake", apiType: "openai", baseUrl: "http://10.1.2.3:8080/v1" }],
      [
        "http to a name that only starts like loopback",
        { providerId: "fake", apiType: "openai", baseUrl: "http://127.0.0.1.example.com/v1" },
      ],
      ["relative", { providerId: "fake", apiType: "openai", baseUrl: "/v1" }],
      ["ftp", { providerId: "fake", apiType: "openai", baseUrl: "ftp://127.0.0.1/v1" }],
      [
        "credentials in the address",
        { providerId: "fake", apiType: "openai", baseUrl: "https://user:pw-in-url@gw.example.com/v1" },
      ],
      ["an unknown provider", { providerId: "nope", apiType: "openai", baseUrl: "https://gw.example.com/v1" }],
      [
        "a protocol Codex does not speak",
        { providerId: "fake", apiType: "anthropic", baseUrl: "https://gw.example.com/v1" },
      ],
      [
        "an Authorization header Codex would replace with its own key",
        {
          providerId: "fake",
          apiType: "openai",
          baseUrl: "https://gw.example.com/v1",
          headers: { authorization: "Bearer refused-secret-1" },
        },
      ],
      [
        "headers for Codex's built-in OpenAI provider",
        {
          providerId: "openai",
          apiType: "openai",
          baseUrl: "https://gw.example.com/v1",
          headers: { "X-Team": "refused-secret-2" },
        },
      ],
      [
        "a header value that would split the request",
        {
          providerId: "fake",
          apiType: "openai",
          baseUrl: "https://gw.example.com/v1",
          headers: { "X-A": "refused-secret-3\r\nX-B: b" },
        },
      ],
    ];
    for (const [why, params] of refused) {
      const err = await set(adapter, params).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string; data?: unknown },
      );
      expect(err?.code, why).toBe(-32602);
      expect(JSON.stringify(err), why).not.toMatch(/refused-secret|pw-in-url/);
    }
    expect(await list(adapter)).toEqual(listBefore);
    expect(await readFile(adapter.home.configPath, "utf8")).toBe(configBefore);
    expect(adapter.stderr()).not.toMatch(/refused-secret|pw-in-url/);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "hello");
    expect(adapter.fake.requests).toHaveLength(1);
  });

  it("disable: a required provider is refused, an unknown one is no error, a disabled one stays listed without routing and its sessions do not reach it; set enables it again", async () => {
    const secondModel = await fakeModel(textResponse("second, after it was enabled again"));
    const gateway = await fakeModel(textResponse("the gateway, with the client's key"));
    const configured = await fakeModel();
    // Two agents, one after the other, on one CODEX_HOME and workspace (kept until the test ends).
    const home = await createCodexHome({ modelUrl: configured.url, extraConfig: secondProvider(secondModel.url) });
    const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-providers-")));
    opened.push({ close: () => home.cleanup() }, { close: () => rm(workspace, { recursive: true, force: true }) });
    // The first one's threads run on "second" (an auth-less provider: the client's Authorization goes through).
    const first = await adapterWith({
      fake: configured,
      home,
      workspace,
      env: { CODEX_ACP_CODEX_ARGS: `-c model_provider="second"` },
    });
    expect((await providerOf(first, "second"))?.required).toBe(true);
    await set(first, {
      providerId: "second",
      apiType: "openai",
      baseUrl: gateway.url,
      headers: { Authorization: "Bearer client-key-5d1e" },
    });
    const { sessionId } = await first.newSession();
    await first.prompt(sessionId, "first words");
    expect(gateway.requests[0]!.headers.authorization).toBe("Bearer client-key-5d1e");
    expect(await filesHolding(home.base, "client-key-5d1e")).toEqual([]);
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    // A second agent on the same CODEX_HOME, whose threads run on "fake".
    const adapter = await adapterWith({ fake: configured, home, workspace });
    await expect(disable(adapter, "fake")).rejects.toMatchObject({ code: -32602 });
    expect(await disable(adapter, "no-such-provider")).toEqual({});
    expect(await disable(adapter, "second")).toEqual({});
    expect(await providerOf(adapter, "second")).toEqual({
      providerId: "second",
      supported: ["openai"],
      required: false,
      current: null,
    });

    await adapter.agent.request("session/load", { sessionId, cwd: workspace, mcpServers: [] });
    const refused = await adapter.prompt(sessionId, "are you there?").then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(refused?.message).toMatch(/"second".*disabled/);
    expect(secondModel.requests).toHaveLength(0);
    expect(gateway.requests).toHaveLength(1);

    await set(adapter, { providerId: "second", apiType: "openai", baseUrl: secondModel.url });
    expect((await providerOf(adapter, "second"))?.current).toEqual({ apiType: "openai", baseUrl: secondModel.url });
    expect((await adapter.prompt(sessionId, "and now?")).stopReason).toBe("end_turn");
    expect(secondModel.requests).toHaveLength(1);
  });

  it("a provider set survives a codex restart: listed the same, and the sessions' turns still go there", async () => {
    const gateway = await fakeModel(
      textResponse("before the restart"),
      textResponse("after the restart"),
      textResponse("a new session after it"),
    );
    const adapter = await adapterWith({ responses: [] });
    await set(adapter, {
      providerId: "fake",
      apiType: "openai",
      baseUrl: gateway.url,
      headers: { "X-Route": "team-a" },
    });
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "one");
    await killCodex(adapter);

    expect((await providerOf(adapter, "fake"))?.current).toEqual({ apiType: "openai", baseUrl: gateway.url });
    expect((await adapter.prompt(sessionId, "two")).stopReason).toBe("end_turn");
    const next = await adapter.newSession();
    expect((await adapter.prompt(next.sessionId, "three")).stopReason).toBe("end_turn");
    expect(gateway.requests).toHaveLength(3);
    expect(gateway.requests.map((r) => r.headers["x-route"])).toEqual(["team-a", "team-a", "team-a"]);
    expect(adapter.fake.requests).toHaveLength(0);
  });
});
