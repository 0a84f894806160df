// The client's MCP servers (session/new, load, resume `mcpServers`) forwarded into the
// thread's `config.mcp_servers`: stdio as command/args/env, http as url + headers. SSE is
// refused (Codex speaks stdio and streamable HTTP only).
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { textContent } from "../bridge/index.js";
import type { JsonValue } from "../codex/index.js";
import type { AgentServices, SessionFeature, SessionOpening } from "../core/index.js";
import { withoutSecrets } from "../core/index.js";
import type { AcpSession } from "../core/index.js";
import { mcpServerNames, withMcpServers } from "../core/index.js";

/** A Codex config key for a server name: [a-zA-Z0-9_-] only, never empty, unique among `taken`. */
export function safeServerName(name: string, taken: ReadonlySet<string>): string {
  const base = name.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "server";
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
  return candidate;
}

/** config.mcp_servers entries for the client's servers; throws invalid params for SSE. */
export function mcpServersConfig(
  servers: readonly acp.McpServer[],
  taken: ReadonlySet<string> = new Set(),
): { [name: string]: { [key: string]: JsonValue } } {
  const out: { [name: string]: { [key: string]: JsonValue } } = {};
  const names = new Set(taken);
  for (const server of servers) {
    if ("type" in server && server.type === "sse") {
      throw acp.RequestError.invalidParams(
        { mcpServer: server.name },
        `MCP server "${server.name}" uses SSE, which Codex does not support; use a stdio or streamable HTTP server`,
      );
    }
    const name = safeServerName(server.name, names);
    names.add(name);
    if ("type" in server && server.type === "http") {
      const headers = Object.fromEntries((server.headers ?? []).map((h) => [h.name, h.value]));
      out[name] = { url: server.url, ...(Object.keys(headers).length ? { http_headers: headers } : {}) };
    } else {
      const stdio = server as acp.McpServerStdio;
      const env = Object.fromEntries((stdio.env ?? []).map((e) => [e.name, e.value]));
      out[name] = { command: stdio.command, args: stdio.args ?? [], ...(Object.keys(env).length ? { env } : {}) };
    }
  }
  return out;
}

const userServerSchema = z.looseObject({
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  url: z.string().optional(),
  enabled: z.boolean().optional(),
});

/** The MCP servers in the user's configuration (config/read's `mcp_servers`), by name: what says which server each is. */
function userServersOf(
  config: { [key: string]: unknown } | undefined,
): Record<string, z.infer<typeof userServerSchema>> {
  const servers = config?.mcp_servers;
  if (!servers || typeof servers !== "object" || Array.isArray(servers)) return {};
  return Object.fromEntries(
    Object.entries(servers).map(([name, entry]) => [name, userServerSchema.safeParse(entry).data ?? {}]),
  );
}

/**
 * Whether the client's server is the user's server of that name, and runs as such: the same
 * command and arguments, or the same address, not turned off (`enabled = false` would leave the
 * editor's request without its server).
 */
function isUsersOwn(server: acp.McpServer, users: Record<string, z.infer<typeof userServerSchema>>): boolean {
  const user = Object.hasOwn(users, server.name) ? users[server.name] : undefined;
  if (!user || user.enabled === false) return false;
  if ("type" in server && (server.type === "http" || server.type === "sse"))
    return user.url !== undefined && user.url === server.url;
  const stdio = server as acp.McpServerStdio;
  return user.command === stdio.command && JSON.stringify(user.args ?? []) === JSON.stringify(stdio.args ?? []);
}

/** The longest a session's opening is watched for startup reports before it attaches. */
const OPENING_WATCH_MS = 120_000;

const startupStatusSchema = z.looseObject({
  threadId: z.string().nullable(),
  name: z.string(),
  status: z.string(),
  error: z.string().nullable(),
  failureReason: z.string().nullable().optional(),
});
type StartupStatus = z.infer<typeof startupStatusSchema>;

/**
 * An MCP server that fails to start is shown to the user (a failed tool call naming the server
 * and Codex's error) and told to the model with its next prompt, so it does not go looking for
 * tools that are not there. Codex reports startup while the thread is being opened, before the
 * session listens to its thread: those reports are collected from `prepare` to `attach`.
 */
function startupWatcher(): Required<Pick<SessionFeature, "prepare" | "attach" | "abandon">> {
  const early = new WeakMap<SessionOpening, { statuses: StartupStatus[]; stop(): void }>();
  return {
    prepare(opening, services) {
      const statuses: StartupStatus[] = [];
      const unsubscribe = services.host.onNotification((method, params) => {
        if (method !== "mcpServer/startupStatus/updated") return;
        const parsed = startupStatusSchema.safeParse(params);
        if (parsed.success) statuses.push(parsed.data);
      });
      // An opening that fails before attach or abandon (another feature's prepare threw) must
      // not leave this listening for good.
      const expiry = setTimeout(unsubscribe, OPENING_WATCH_MS);
      expiry.unref();
      early.set(opening, {
        statuses,
        stop: () => {
          clearTimeout(expiry);
          unsubscribe();
        },
      });
    },
    abandon(opening) {
      early.get(opening)?.stop();
      early.delete(opening);
    },
    attach(session, opening, services) {
      const reported = new Set<string>();
      const onStatus = (status: StartupStatus): void => {
        if (status.threadId !== session.threadId) return;
        // Started again after its failure was told (`/mcp reconnect`, `/mcp login`): the model
        // hears so with its next prompt (it was told not to use the server), and a later failure
        // is reported again.
        if (status.status === "ready" && reported.delete(status.name)) {
          session.addTurnContext(
            mcpUnavailableKey(status.name),
            `The MCP server "${status.name}" is available again (it was started again after failing); its tools can be called.`,
          );
          return;
        }
        if (status.status !== "failed" || reported.has(status.name)) return;
        reported.add(status.name);
        reportFailure(session, opening, services, status);
      };
      session.on("notification", (n) => {
        if (n.method === "mcpServer/startupStatus/updated") onStatus(n.params);
      });
      const collected = early.get(opening);
      early.delete(opening);
      collected?.stop();
      for (const status of collected?.statuses ?? []) onStatus(status);
    },
  };
}

/** The turn context about a server's availability: one key per server, so the latest word replaces an undelivered earlier one. */
function mcpUnavailableKey(name: string): string {
  return `codex-cli-acp/mcp-unavailable/${name}`;
}

function reportFailure(
  session: AcpSession,
  opening: SessionOpening,
  services: AgentServices,
  status: StartupStatus,
): void {
  const { name } = status;
  // Codex quotes the server's address, which may carry a token (`?token=`, `user:password@`).
  const error = withoutSecrets(
    status.error ??
      (status.failureReason === "reauthenticationRequired" ? "it needs to be signed in again" : "no reason given"),
  );
  // Codex's own advice for a sign-in is its CLI's `codex mcp login`, which does not know a server
  // the editor gave: here it is the `/mcp` command (commands feature).
  const needsSignIn = status.failureReason === "reauthenticationRequired" || /not logged in|mcp login/i.test(error);
  const fix = needsSignIn
    ? `Send \`/mcp login ${name}\` to sign in.`
    : "Fix what stops it, then send `/mcp reconnect`.";
  services.log.warn({ sessionId: session.id, server: name, error }, "an MCP server failed to start");
  session.addTurnContext(
    mcpUnavailableKey(name),
    `The MCP server "${name}" is not available in this session (it failed to start: ${error}). Its tools cannot be called; tell the user if the task needs them (in this editor: ${fix})`,
  );
  const show = (): void => {
    if (session.isClosed) return;
    void session
      .send({
        sessionUpdate: "tool_call",
        toolCallId: `mcp-startup-${name}`,
        title: `MCP server ${name} failed to start`,
        kind: "other",
        status: "failed",
        content: [textContent(`${error}\n${fix}`)],
      })
      .catch(() => undefined);
  };
  // During session/new the client does not know the session yet: after the response.
  if (opening.kind === "new") setTimeout(show, 0);
  else show();
}

/** The client's MCP servers into the thread's config, and the ones that fail to start reported. */
export function mcpServersFeature(): SessionFeature {
  const startup = startupWatcher();
  return {
    name: "mcp-servers",
    attach: startup.attach,
    abandon: startup.abandon,
    async prepare(opening, services) {
      const servers = opening.request.mcpServers ?? [];
      if (servers.length > 0) {
        // Codex merges a thread's server into the user's own of the same name, field by field: a
        // client's server named like one in config.toml would run with that one's env (its
        // tokens), or fail the session over another transport. Those names are taken.
        const userServers = userServersOf((await services.host.userConfig.read(opening.settings.cwd))?.config);
        // The user's own server, passed again by the editor (the same command, or address): it runs once, as config.toml has it.
        const own = servers.filter((server) => isUsersOwn(server, userServers));
        if (own.length > 0)
          services.log.info(
            { servers: own.map((s) => s.name) },
            "client MCP servers already in config.toml; run as configured there",
          );
        const added = mcpServersConfig(
          servers.filter((server) => !own.includes(server)),
          new Set([...mcpServerNames(opening.settings.config), ...Object.keys(userServers)]),
        );
        opening.settings.config = withMcpServers(opening.settings.config, added);
        services.log.info({ servers: Object.keys(added) }, "client MCP servers added to the thread");
      }
      await startup.prepare(opening, services);
    },
  };
}
