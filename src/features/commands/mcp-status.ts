// `/mcp`: the session's MCP servers as Codex sees them (mcpServerStatus/list): state, tools, how
// the server signs in, and what the user can do about a server that is not working.
import type { AppServerClient, v2 } from "../../codex/index.js";
import type { AgentServices } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";
import { textHead } from "../../text/index.js";

/** Codex's pages are followed this far (a session with more servers than this is not a real one). */
const MAX_PAGES = 20;
/** Codex's errors can carry whole type names of its transport stack: the start says what happened. */
const MAX_ERROR_CHARS = 200;

/**
 * The session's servers. Without `names`, Codex's whole list (which may start a copy of a stdio
 * server to read its tools); with `names`, each server asked for by name, which reads the
 * session's own connection.
 */
export async function listServers(
  client: AppServerClient,
  threadId: string,
  names?: readonly string[],
): Promise<v2.McpServerStatus[]> {
  if (names) {
    const pages = await Promise.all(
      names.map((serverName) =>
        client.call("mcpServerStatus/list", { threadId, serverName, detail: "toolsAndAuthOnly" }),
      ),
    );
    return pages.flatMap((page) => page.data);
  }
  const servers: v2.McpServerStatus[] = [];
  let cursor: string | null | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await client.call("mcpServerStatus/list", {
      threadId,
      detail: "toolsAndAuthOnly",
      ...(cursor ? { cursor } : {}),
    });
    servers.push(...res.data);
    cursor = res.nextCursor;
    if (cursor == null) break;
  }
  return servers;
}

const STATES: Record<v2.McpServerConnectionStatus, string> = {
  connected: "connected",
  starting: "starting",
  notStarted: "not started",
  authenticationRequired: "needs sign-in",
  failed: "failed",
  cancelled: "cancelled",
  disabled: "disabled",
};

const SIGN_IN: Record<v2.McpAuthStatus, string> = {
  unsupported: "no sign-in",
  notLoggedIn: "not signed in",
  bearerToken: "bearer token",
  oAuth: "signed in with OAuth",
  unknown: "sign-in state unknown",
};

/** What the user can do about a server in this state, or undefined when nothing is wrong. */
function advice(server: v2.McpServerStatus): string | undefined {
  const state = server.runtimeStatus;
  const login = `send \`/mcp login ${server.name}\` to sign in`;
  if (server.authStatus === "notLoggedIn") return login;
  if (state === "authenticationRequired") {
    if (server.authStatus === "bearerToken")
      return "the server refused its token: fix the token in the editor's settings for this server (a new session uses it)";
    return server.authStatus === "oAuth" ? `the sign-in expired or was refused: ${login} again` : login;
  }
  if (state === "failed" || state === "cancelled" || state === "notStarted")
    return "fix what stops it, then send `/mcp reconnect`";
  return undefined;
}

function shortError(error: string | null | undefined): string | undefined {
  if (!error) return undefined;
  return error.length > MAX_ERROR_CHARS ? `${textHead(error, MAX_ERROR_CHARS)}…` : error;
}

/** One server as a line: `- **name**: state, N tools; sign-in — advice`. */
export function serverLine(server: v2.McpServerStatus, note?: string): string {
  const tools = Object.keys(server.tools ?? {}).length;
  const state = server.runtimeStatus == null ? "state unknown" : STATES[server.runtimeStatus];
  const todo = advice(server);
  // An auth failure's error is Codex's transport stack; the advice says it better.
  const error = server.runtimeStatus === "authenticationRequired" ? undefined : shortError(server.toolsError);
  return [
    `- **${server.name}**: ${state ?? server.runtimeStatus}`,
    tools ? `, ${tools} tool${tools === 1 ? "" : "s"}` : "",
    `; ${SIGN_IN[server.authStatus] ?? server.authStatus}`,
    note ? ` (${note})` : "",
    error ? ` (${error})` : "",
    todo ? ` — ${todo}` : "",
  ].join("");
}

/** The servers as the `/mcp` answer. */
export function serversText(
  servers: readonly v2.McpServerStatus[],
  notes: ReadonlyMap<string, string> = new Map(),
): string {
  if (servers.length === 0) return "No MCP servers in this session.\n";
  const lines = servers.map((s) => serverLine(s, notes.get(s.name)));
  return `**MCP servers**\n${lines.join("\n")}\n`;
}

export function failureText(what: string, err: unknown): string {
  return `Codex could not ${what}: ${err instanceof Error ? err.message : String(err)}\n`;
}

/** `/mcp`: the session's MCP servers, their state, tools and sign-in, for the user. */
export async function mcpStatusText(session: AcpSession, services: AgentServices): Promise<string> {
  try {
    const client = await session.ensureAttached();
    return serversText(await listServers(client, session.threadId));
  } catch (err) {
    services.log.warn({ err: String(err), sessionId: session.id }, "mcpServerStatus/list failed");
    return failureText("list the MCP servers", err);
  }
}
