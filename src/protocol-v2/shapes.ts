// The request and answer shapes that differ between ACP v1 (what the agent speaks) and the v2
// draft (what a v2 client speaks): the handshake, config options (`id` is `configId`, groups say
// `groupId`), commands (tagged), sign-in methods (`methodId`), MCP servers (stdio is tagged) and
// the session answers (no modes, no legacy models: the mode is a config option).
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { RequestError } from "@agentclientprotocol/sdk/unstable";

/**
 * The capabilities the v1 core is given for a v2 client: no `fs/*` and no client terminals (v2 has
 * neither), Zed's terminal convention (mapped to v2's agent-owned terminals), plans, notices,
 * compaction and boolean config options (v2 has them all), and what the client itself declares for
 * sign-in and elicitations.
 */
export function toV1ClientCapabilities(caps: v2.ClientCapabilities | undefined): v1.ClientCapabilities {
  return {
    terminal: false,
    plan: {},
    session: { notices: {}, compaction: {}, configOptions: { boolean: {} } },
    ...(caps?.auth ? { auth: caps.auth as v1.ClientCapabilities["auth"] } : {}),
    ...(caps?.elicitation ? { elicitation: caps.elicitation } : {}),
    // Zed's terminals, which map to v2's; never the deltas convention, whose output has no v2 form.
    _meta: { ...caps?._meta, terminal_output: true, terminal_output_delta: false },
  };
}

export function toV1Initialize(params: v2.InitializeRequest): v1.InitializeRequest {
  return {
    protocolVersion: 1,
    clientCapabilities: toV1ClientCapabilities(params.capabilities),
    clientInfo: {
      name: params.info.name,
      version: params.info.version,
      ...(params.info.title ? { title: params.info.title } : {}),
    },
    ...(params._meta ? { _meta: params._meta } : {}),
  };
}

/** What the agent offers a v2 client: the same sessions, under v2's names (list, resume and close are v2 baseline). */
function toV2Capabilities(caps: v1.AgentCapabilities): v2.AgentCapabilities {
  const s = caps.sessionCapabilities ?? {};
  const session: v2.SessionCapabilities = {
    prompt: {
      ...(caps.promptCapabilities?.image ? { image: {} } : {}),
      ...(caps.promptCapabilities?.embeddedContext ? { embeddedContext: {} } : {}),
    },
    mcp: { stdio: {}, ...(caps.mcpCapabilities?.http ? { http: {} } : {}) },
    ...(s.delete ? { delete: {} } : {}),
    ...(s.additionalDirectories ? { additionalDirectories: {} } : {}),
    ...(s.systemPrompt ? { systemPrompt: s.systemPrompt } : {}),
    ...(s.fork ? { fork: {} } : {}),
    ...(s.archive ? { archive: {} } : {}),
    ...(s.status ? { status: {} } : {}),
    ...(s.title ? { title: {} } : {}),
  };
  return {
    session,
    ...(caps.auth?.status ? { auth: { status: {} } } : {}),
    ...(caps.providers ? { providers: {} } : {}),
    ...(caps._meta ? { _meta: caps._meta } : {}),
  };
}

export function toV2Initialize(answer: v1.InitializeResponse): v2.InitializeResponse {
  const info = answer.agentInfo ?? { name: "codex-cli-acp", version: "unknown" };
  return {
    protocolVersion: 2,
    info: { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) },
    capabilities: toV2Capabilities(answer.agentCapabilities ?? {}),
    authMethods: (answer.authMethods ?? []).map(toV2AuthMethod),
    ...(answer._meta ? { _meta: answer._meta } : {}),
  };
}

function toV2AuthMethod(method: v1.AuthMethod): v2.AuthMethod {
  const { id, ...rest } = method as v1.AuthMethod & { id: string; type?: string };
  return { ...rest, type: rest.type === "terminal" ? "terminal" : "agent", methodId: id } as v2.AuthMethod;
}

export function toV2ConfigOptions(options: readonly v1.SessionConfigOption[]): v2.SessionConfigOption[] {
  return options.map((option) => {
    const { id, ...rest } = option;
    if (rest.type !== "select") return { ...rest, configId: id };
    const grouped = rest.options.map((o) => ("group" in o ? (({ group, ...g }) => ({ ...g, groupId: group }))(o) : o));
    return { ...rest, configId: id, options: grouped } as v2.SessionConfigOption;
  });
}

export function toV1SetConfigOption(params: v2.SetSessionConfigOptionRequest): v1.SetSessionConfigOptionRequest {
  const base = {
    sessionId: params.sessionId,
    configId: params.configId,
    ...(params._meta ? { _meta: params._meta } : {}),
  };
  if (params.type === "id" && typeof params.value === "string") return { ...base, value: params.value };
  if (params.type === "boolean" && typeof params.value === "boolean")
    return { ...base, type: "boolean", value: params.value };
  throw RequestError.invalidParams(
    { type: params.type },
    `a config value of type "${String(params.type)}" is not supported; use "id" or "boolean"`,
  );
}

export function toV2Commands(commands: readonly v1.AvailableCommand[]): v2.AvailableCommand[] {
  return commands.map(({ input, ...command }) => ({
    ...command,
    type: "command",
    ...(input && "hint" in input ? { input: { type: "text", hint: input.hint } } : {}),
  }));
}

export function toV1McpServers(servers: readonly v2.McpServer[] | undefined): v1.McpServer[] {
  return (servers ?? []).map((server) => {
    if (server.type === "stdio" && "command" in server) {
      const { type: _type, ...stdio } = server as Extract<v2.McpServer, { type: "stdio" }>;
      return { ...stdio, args: stdio.args ?? [], env: stdio.env ?? [] };
    }
    return server as v1.McpServer;
  });
}

/** A session's v1 answer as v2's: config options and commands; modes and the legacy models dropped (the mode is a config option). */
export function toV2SessionAnswer(answer: {
  configOptions?: v1.SessionConfigOption[] | null;
  _meta?: Record<string, unknown> | null;
}): { configOptions?: v2.SessionConfigOption[]; _meta?: Record<string, unknown> } {
  return {
    ...(answer.configOptions ? { configOptions: toV2ConfigOptions(answer.configOptions) } : {}),
    ...(answer._meta ? { _meta: answer._meta } : {}),
  };
}
