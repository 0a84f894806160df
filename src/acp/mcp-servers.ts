// The client's MCP servers (session/new, load, resume `mcpServers`) forwarded into the
// thread's `config.mcp_servers`: stdio as command/args/env, http as url + headers. SSE is
// refused (Codex speaks stdio and streamable HTTP only).
import * as acp from "@agentclientprotocol/sdk";
import type { JsonValue } from "../codex/index.js";
import type { SessionFeature } from "./features.js";
import { mcpServerNames, withMcpServers } from "./session.js";

/** A Codex config key for a server name: [a-zA-Z0-9_-] only, never empty, unique among `taken`. */
export function safeServerName(name: string, taken: ReadonlySet<string>): string {
  const base = name.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "server";
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
  return candidate;
}

/** config.mcp_servers entries for the client's servers; throws invalid params for SSE. */
export function mcpServersConfig(servers: readonly acp.McpServer[], taken: ReadonlySet<string> = new Set()): { [name: string]: { [key: string]: JsonValue } } {
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

export const mcpServersFeature: SessionFeature = {
  name: "mcp-servers",
  prepare(opening, services) {
    const servers = (opening.request as { mcpServers?: acp.McpServer[] }).mcpServers ?? [];
    if (servers.length === 0) return;
    const added = mcpServersConfig(servers, mcpServerNames(opening.settings.config));
    opening.settings.config = withMcpServers(opening.settings.config, added);
    services.log.info({ servers: Object.keys(added) }, "client MCP servers added to the thread");
  },
};
