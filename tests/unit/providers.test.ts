// The providers feature's rules, apart from Codex: which base URLs and headers a client may set,
// how Codex's provider list becomes ACP's, and the per-thread config a route becomes.
import { describe, expect, it } from "vitest";
import {
  baseUrlSchema,
  headersSchema,
  OPENAI_API_URL,
  providerInfos,
  routeFor,
  threadConfig,
  type ProviderState,
  type Route,
} from "../../src/features/providers.js";
import type { v2 } from "../../src/codex/index.js";

const codex: v2.ModelProviderListResponse = {
  defaultProviderId: "gateway",
  canChangeDefault: true,
  data: [
    { id: "openai", name: "OpenAI", canEdit: false, baseUrl: null, settings: { type: "openai" } },
    {
      id: "bedrock",
      name: "Amazon Bedrock",
      canEdit: true,
      baseUrl: null,
      settings: { type: "bedrock", profile: null, region: "us-east-1" },
    },
    {
      id: "gateway",
      name: "Gateway",
      canEdit: true,
      baseUrl: "https://gw.example.com/v1",
      settings: { type: "customGateway", auth: { mode: "environmentVariable", envKey: "GW_KEY" } },
    },
    {
      id: "local",
      name: "Local",
      canEdit: true,
      baseUrl: "http://127.0.0.1:11434/v1",
      settings: { type: "customGateway", auth: { mode: "none" } },
    },
  ],
};

const emptyState = (): ProviderState => ({ routes: new Map(), disabled: new Set() });

/** The error routeFor throws for these params (it must throw). */
function refusal(params: unknown): { code: number; message: string; data?: unknown } {
  try {
    routeFor(params, codex);
  } catch (err) {
    return err as { code: number; message: string; data?: unknown };
  }
  throw new Error(`accepted: ${JSON.stringify(params)}`);
}

describe("a provider's base URL", () => {
  it.each([
    "https://gw.example.com/v1",
    "HTTPS://GW.EXAMPLE.COM/openai/v1",
    "http://127.0.0.1:8080/v1",
    "http://localhost:1234",
    "http://LOCALHOST/v1",
    "http://[::1]:9/v1",
    "https://10.0.0.1/v1",
  ])("takes %s", (url) => {
    expect(baseUrlSchema.safeParse(url).success).toBe(true);
  });

  it.each([
    ["http://10.1.2.3:8080/v1", /http only on loopback/],
    ["http://gw.example.com/v1", /http only on loopback/],
    ["http://127.0.0.1.example.com/v1", /http only on loopback/],
    ["http://localhost.example.com/v1", /http only on loopback/],
    ["http://127.0.0.2/v1", /http only on loopback/],
    ["/v1", /absolute URL/],
    ["gw.example.com/v1", /absolute URL/],
    ["https:gw.example.com/v1", /absolute URL/],
    ["", /absolute URL/],
    ["ftp://127.0.0.1/v1", /not ftp/],
    ["file:///etc/passwd", /not file/],
    ["ws://127.0.0.1/v1", /not ws/],
    ["https://user:secret@gw.example.com/v1", /credentials/],
    ["https://gw.example.com/v1?key=secret", /query/],
    ["https://gw.example.com/v1#x", /fragment/],
    [" https://gw.example.com/v1", /spaces/],
    ["https://gw.example.com/v1\n", /control/],
    ["https://", /not a valid URL/],
  ])("refuses %j", (url, why) => {
    const parsed = baseUrlSchema.safeParse(url);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(why);
  });
});

describe("a provider's headers", () => {
  it("takes ordinary fields, an empty map and a tab in a value", () => {
    expect(headersSchema.safeParse({ Authorization: "Bearer x", "X-Team": "a\tb" }).success).toBe(true);
    expect(headersSchema.safeParse({}).success).toBe(true);
  });

  it("refuses what would split or corrupt the request: line breaks, control characters, bad names, too many, too long", () => {
    for (const headers of [
      { "X-A": "a\r\nX-B: b" },
      { "X-A": "a\nb" },
      { "X-A": "a\u0000" },
      { "X A": "v" },
      { "": "v" },
      { "X:A": "v" },
      { "X-A": "x".repeat(8193) },
      Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`X-${i}`, "v"])),
    ]) {
      expect(headersSchema.safeParse(headers).success, JSON.stringify(headers).slice(0, 60)).toBe(false);
    }
  });
});

describe("providers/set against Codex's providers", () => {
  it("routes a gateway of config.toml, and one that Codex signs with no key may take the client's Authorization", () => {
    expect(
      routeFor(
        {
          providerId: "gateway",
          apiType: "openai",
          baseUrl: "https://proxy.example.com/v1",
          headers: { "X-Team": "a" },
        },
        codex,
      ),
    ).toEqual({
      providerId: "gateway",
      route: { builtIn: false, baseUrl: "https://proxy.example.com/v1", headers: { "X-Team": "a" } },
    });
    expect(
      routeFor(
        {
          providerId: "local",
          apiType: "openai",
          baseUrl: "http://localhost:8000/v1",
          headers: { Authorization: "Bearer k" },
        },
        codex,
      ).route.headers,
    ).toEqual({ Authorization: "Bearer k" });
    expect(
      routeFor({ providerId: "openai", apiType: "openai", baseUrl: "https://proxy.example.com/v1" }, codex),
    ).toEqual({
      providerId: "openai",
      route: { builtIn: true, baseUrl: "https://proxy.example.com/v1", headers: {} },
    });
  });

  it("refuses with invalid params, naming the field and never a header's value", () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        { providerId: "gateway", apiType: "openai", baseUrl: "http://gw.example.com/v1" },
        /baseUrl may use http only on loopback/,
      ],
      [{ providerId: "", apiType: "openai", baseUrl: "https://gw.example.com/v1" }, /providerId must not be empty/],
      [
        { providerId: "gateway", apiType: "anthropic", baseUrl: "https://gw.example.com/v1" },
        /only "openai".*not "anthropic"/,
      ],
      [
        { providerId: "bedrock", apiType: "openai", baseUrl: "https://gw.example.com/v1" },
        /unknown provider "bedrock"; Codex's are openai, gateway, local/,
      ],
      [{ providerId: "nope", apiType: "openai", baseUrl: "https://gw.example.com/v1" }, /unknown provider "nope"/],
      [
        {
          providerId: "openai",
          apiType: "openai",
          baseUrl: "https://gw.example.com/v1",
          headers: { "X-Team": "secret-value-1" },
        },
        /built-in "openai" provider takes an address but no headers/,
      ],
      [
        {
          providerId: "gateway",
          apiType: "openai",
          baseUrl: "https://gw.example.com/v1",
          headers: { AUTHORIZATION: "Bearer secret-value-2" },
        },
        /signs "gateway"'s requests with the key in \$GW_KEY/,
      ],
      [
        {
          providerId: "gateway",
          apiType: "openai",
          baseUrl: "https://gw.example.com/v1",
          headers: { "X-A": "secret-value-3\r\nX-B: 1" },
        },
        /headers\.X-A must not contain line breaks/,
      ],
    ];
    for (const [params, message] of cases) {
      const err = refusal(params);
      expect(err.code).toBe(-32602);
      expect(err.message).toMatch(message);
      expect(JSON.stringify({ message: err.message, data: err.data })).not.toContain("secret-value");
    }
  });
});

describe("providers/list from Codex's providers", () => {
  it("the provider new threads run on first and required, then the others; Bedrock (not routed by address) left out", () => {
    expect(providerInfos(codex, emptyState())).toEqual([
      {
        providerId: "gateway",
        supported: ["openai"],
        required: true,
        current: { apiType: "openai", baseUrl: "https://gw.example.com/v1" },
      },
      {
        providerId: "openai",
        supported: ["openai"],
        required: false,
        current: { apiType: "openai", baseUrl: OPENAI_API_URL },
      },
      {
        providerId: "local",
        supported: ["openai"],
        required: false,
        current: { apiType: "openai", baseUrl: "http://127.0.0.1:11434/v1" },
      },
    ]);
  });

  it("shows a route the client set, and a disabled provider without one", () => {
    const state = emptyState();
    state.routes.set("gateway", {
      builtIn: false,
      baseUrl: "https://proxy.example.com/v1",
      headers: { Authorization: "Bearer hidden" },
    });
    state.disabled.add("local");
    const infos = providerInfos(codex, state);
    expect(infos.find((p) => p.providerId === "gateway")?.current).toEqual({
      apiType: "openai",
      baseUrl: "https://proxy.example.com/v1",
    });
    expect(infos.find((p) => p.providerId === "local")?.current).toBeNull();
    expect(JSON.stringify(infos)).not.toContain("hidden");
  });
});

describe("the per-thread config of the routes", () => {
  it("the built-in OpenAI provider by openai_base_url, the others over their config.toml entry (headers only when there are some)", () => {
    const routes = new Map<string, Route>([
      ["openai", { builtIn: true, baseUrl: "https://proxy.example.com/openai/v1", headers: {} }],
      ["gateway", { builtIn: false, baseUrl: "https://proxy.example.com/v1", headers: { "X-Team": "a" } }],
      ["local", { builtIn: false, baseUrl: "http://[::1]:8000/v1", headers: {} }],
    ]);
    expect(threadConfig(routes)).toEqual({
      openai_base_url: "https://proxy.example.com/openai/v1",
      model_providers: {
        gateway: { base_url: "https://proxy.example.com/v1", http_headers: { "X-Team": "a" } },
        local: { base_url: "http://[::1]:8000/v1" },
      },
    });
    expect(threadConfig(new Map())).toEqual({});
  });
});
