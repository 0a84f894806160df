// `/mcp [reconnect [server] | login <server>]`: the session's MCP servers, and fixing them.
import type { AgentServices } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";
import { mcpLoginText, type McpLogins } from "./mcp-login.js";
import { mcpReconnectText } from "./mcp-reconnect.js";
import { mcpStatusText } from "./mcp-status.js";

export type { McpLogins } from "./mcp-login.js";

/** What `/mcp <args>` answers (a sign-in goes on after it, on its card). */
export function mcpCommandText(
  session: AcpSession,
  args: string,
  services: AgentServices,
  logins: McpLogins,
): Promise<string> {
  const [action = "", name = ""] = args.split(/\s+/).filter(Boolean);
  switch (action.toLowerCase()) {
    case "":
      return mcpStatusText(session, services);
    case "reconnect":
      return mcpReconnectText(session, name, services);
    case "login":
      return mcpLoginText(session, name, services, logins);
    default:
      return Promise.resolve(
        `\`/mcp ${action}\` is not a command: send \`/mcp\` (the servers), \`/mcp reconnect [server]\` or \`/mcp login <server>\`.\n`,
      );
  }
}
