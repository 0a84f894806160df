// Configurable LLM providers (ACP unstable: providers/list, providers/set, providers/disable) over
// Codex's model providers. The list is Codex's own (`modelProvider/list`: the providers of its
// config.toml and its built-in OpenAI one); a provider the client sets or disables is held here for
// the agent's lifetime and never written to disk, as ACP asks (provider configuration is
// process-scoped), and Codex's `modelProvider/config/write` could not carry it anyway (a name, an
// address and an env var name, into the user's config.toml, which is world-readable). What was set
// reaches Codex as per-thread config of the sessions opened after it (`model_providers.<id>` over
// the provider's own entry, or `openai_base_url` for the built-in one), so a thread keeps its
// provider id (Codex cannot resume a thread whose provider is gone) and a session re-attached to a
// restarted codex child sends it again. Headers (credentials included) go to Codex in that config
// only: never into an answer or a log line (header names only).
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { CodexExitedError, type JsonValue, type v2 } from "../codex/index.js";
import type { AgentServices, SessionFeature } from "../core/index.js";
import { invalidParams, invalidRequest, toRequestError } from "../core/index.js";
import type { AcpSession } from "../core/index.js";

/** Where Codex's built-in OpenAI provider sends requests when it shows no address of its own. */
export const OPENAI_API_URL = "https://api.openai.com/v1";
/** What Codex speaks to every provider: OpenAI's Responses API (this version refuses `wire_api = "chat"`). */
const API_TYPE: acp.LlmProtocol = "openai";
/** The only hosts plain http may reach: a key sent in clear stays on this machine. */
const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "[::1]", "localhost"];
const MAX_HEADERS = 64;
const MAX_HEADER_VALUE = 8192;

/** Why `text` cannot be a provider's base URL, or undefined when it can. */
function baseUrlProblem(text: string): string | undefined {
  if (/[\s\u0000-\u001f\u007f]/.test(text)) return "must not contain spaces or control characters";
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return "must be an absolute URL (https://host/path)";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not a valid URL";
  }
  if (url.username || url.password) return "must not carry credentials (send them as headers)";
  // Codex appends its paths (/responses) to the base URL.
  if (url.search || url.hash) return "must not have a query or a fragment";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:")
    return LOOPBACK_HOSTS.includes(url.hostname)
      ? undefined
      : "may use http only on loopback (127.0.0.1, ::1, localhost); use https";
  return `must use https (or http on loopback), not ${url.protocol.slice(0, -1)}`;
}

/** A provider's base URL: absolute https, or http on loopback only. */
export const baseUrlSchema = z.string().superRefine((text, ctx) => {
  const problem = baseUrlProblem(text);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** RFC 9110 field names; values without line breaks or control characters (no request splitting). */
const headerNameSchema = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "is not a valid header name");
const headerValueSchema = z
  .string()
  .max(MAX_HEADER_VALUE, `is over ${MAX_HEADER_VALUE} characters`)
  .refine((v) => !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(v), "must not contain line breaks or control characters");
export const headersSchema = z
  .record(headerNameSchema, headerValueSchema)
  .refine((h) => Object.keys(h).length <= MAX_HEADERS, `at most ${MAX_HEADERS} headers`);

/** What providers/set takes, checked past the SDK's schema (which has the types, not these rules). */
export const setProviderSchema = z.object({
  providerId: z.string().min(1, "must not be empty"),
  apiType: z.string(),
  baseUrl: baseUrlSchema,
  headers: headersSchema.optional(),
});

/** Where the client routes one provider: Codex's built-in OpenAI one, or one of config.toml's. */
export type Route = { builtIn: boolean; baseUrl: string; headers: Record<string, string> };

/** What the client set and disabled, by Codex provider id (the agent's lifetime; no file). */
export type ProviderState = { routes: Map<string, Route>; disabled: Set<string> };

/** Codex's providers the client can route: OpenAI's and its config's gateways (Bedrock, GCP: not by address). */
function routable(p: v2.ModelProviderSummary): boolean {
  return p.settings.type === "openai" || p.settings.type === "customGateway";
}

/** Codex's providers as ACP lists them: the one new threads run on first (required), then the others in Codex's order. */
export function providerInfos(codex: v2.ModelProviderListResponse, state: ProviderState): acp.ProviderInfo[] {
  const listed = codex.data.filter(routable);
  const ordered = [
    ...listed.filter((p) => p.id === codex.defaultProviderId),
    ...listed.filter((p) => p.id !== codex.defaultProviderId),
  ];
  return ordered.map((p) => ({
    providerId: p.id,
    supported: [API_TYPE],
    required: p.id === codex.defaultProviderId,
    // Codex shows no address for its built-in provider (or one it cannot show safely): it then uses OpenAI's.
    current: state.disabled.has(p.id)
      ? null
      : { apiType: API_TYPE, baseUrl: state.routes.get(p.id)?.baseUrl ?? p.baseUrl ?? OPENAI_API_URL },
  }));
}

/** Checks a providers/set against Codex's providers; the route to keep, or invalid params (naming no header value). */
export function routeFor(params: unknown, codex: v2.ModelProviderListResponse): { providerId: string; route: Route } {
  const parsed = setProviderSchema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join(".");
    throw invalidParams({ field }, `providers/set: ${field || "params"} ${issue.message}`);
  }
  const { providerId, apiType, baseUrl, headers = {} } = parsed.data;
  if (apiType !== API_TYPE)
    throw invalidParams(
      { apiType },
      `providers/set: Codex speaks only "${API_TYPE}" (OpenAI's Responses API) to a provider, not "${apiType}"`,
    );
  const provider = codex.data.find((p) => p.id === providerId && routable(p));
  if (!provider) {
    const known = codex.data.filter(routable).map((p) => p.id);
    throw invalidParams(
      { providerId },
      `providers/set: unknown provider "${providerId}"; Codex's are ${known.join(", ")}`,
    );
  }
  const names = Object.keys(headers);
  const builtIn = provider.settings.type === "openai";
  if (builtIn && names.length > 0) {
    throw invalidParams(
      { providerId, headers: names },
      `providers/set: Codex's built-in "${providerId}" provider takes an address but no headers (it signs requests with your Codex sign-in)`,
    );
  }
  const signer =
    provider.settings.type === "customGateway" && provider.settings.auth.mode !== "none"
      ? provider.settings.auth
      : undefined;
  if (signer && names.some((n) => n.toLowerCase() === "authorization")) {
    const source =
      signer.mode === "environmentVariable" ? `the key in $${signer.envKey}` : "its configured credentials";
    throw invalidParams(
      { providerId, headers: names },
      `providers/set: Codex signs "${providerId}"'s requests with ${source}, which would replace this Authorization header`,
    );
  }
  return { providerId, route: { builtIn, baseUrl, headers } };
}

/** The per-thread config (Codex's config.toml keys) that routes Codex's providers as the client set them. */
export type ProviderConfig = { openai_base_url?: string; model_providers?: { [id: string]: JsonValue } };

export function threadConfig(routes: ReadonlyMap<string, Route>): ProviderConfig {
  const config: ProviderConfig = {};
  for (const [id, route] of routes) {
    if (route.builtIn) config.openai_base_url = route.baseUrl;
    // Merged by Codex over the provider's config.toml entry: its name, wire API, retries and key stay.
    else
      config.model_providers = {
        ...config.model_providers,
        [id]: {
          base_url: route.baseUrl,
          ...(Object.keys(route.headers).length > 0 ? { http_headers: route.headers } : {}),
        },
      };
  }
  return config;
}

/** Codex's providers, now (its config may have changed); once more on a new child if codex died meanwhile. */
async function codexProviders(services: AgentServices): Promise<v2.ModelProviderListResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (await services.host.client()).call("modelProvider/list", {});
    } catch (err) {
      if (err instanceof CodexExitedError && attempt < 2) continue;
      throw toRequestError(err);
    }
  }
}

const threadProviderSchema = z.looseObject({ modelProvider: z.string() });

export function providersFeature(): SessionFeature {
  const state: ProviderState = { routes: new Map(), disabled: new Set() };
  /** The provider each session's thread runs on (Codex keeps it for the thread's life). */
  const sessionProviders = new WeakMap<AcpSession, string>();
  return {
    name: "providers",
    agentCapabilities: () => ({ providers: {} }),
    install(app, agent) {
      const { services } = agent;
      app.onRequest(acp.methods.agent.providers.list, async () => ({
        providers: providerInfos(await codexProviders(services), state),
      }));
      app.onRequest(acp.methods.agent.providers.set, async ({ params }) => {
        const { providerId, route } = routeFor(params, await codexProviders(services));
        state.routes.set(providerId, route);
        state.disabled.delete(providerId);
        services.log.info(
          { providerId, baseUrl: route.baseUrl, headers: Object.keys(route.headers) },
          "provider set (sessions opened from now on use it)",
        );
        return {};
      });
      app.onRequest(acp.methods.agent.providers.disable, async ({ params }) => {
        const codex = await codexProviders(services);
        const provider = codex.data.find((p) => p.id === params.providerId && routable(p));
        // ACP: disabling an id it does not list is no error.
        if (!provider) return {};
        if (provider.id === codex.defaultProviderId) {
          throw invalidParams(
            { providerId: provider.id },
            `providers/disable: "${provider.id}" is required: every new Codex thread runs on it (config.toml's model_provider); providers/set can route it elsewhere`,
          );
        }
        state.routes.delete(provider.id);
        state.disabled.add(provider.id);
        services.log.info({ providerId: provider.id }, "provider disabled (its sessions' prompts are refused)");
        return {};
      });
    },
    prepare(opening) {
      const { openai_base_url, model_providers } = threadConfig(state.routes);
      if (!openai_base_url && !model_providers) return;
      const config = { ...opening.settings.config };
      if (openai_base_url) config.openai_base_url = openai_base_url;
      if (model_providers) {
        const other = config.model_providers;
        config.model_providers = {
          ...(other && typeof other === "object" && !Array.isArray(other) ? other : {}),
          ...model_providers,
        };
      }
      opening.settings.config = config;
    },
    async attach(session, opening) {
      const thread = threadProviderSchema.safeParse(await opening.storedThread?.().catch(() => undefined));
      if (thread.success) sessionProviders.set(session, thread.data.modelProvider);
    },
    handlePrompt(session) {
      const provider = sessionProviders.get(session);
      if (provider === undefined || !state.disabled.has(provider)) return undefined;
      return Promise.reject(
        invalidRequest(
          `The model provider "${provider}" this session runs on is disabled (providers/disable); providers/set enables it again`,
        ),
      );
    },
  };
}
