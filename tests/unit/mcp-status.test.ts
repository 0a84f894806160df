// `/mcp`'s line per server: its state, tools and sign-in, and what to do when it is not working
// (the states the end-to-end tests cannot easily bring about: a refused token, an expired sign-in).
import { describe, expect, it } from "vitest";
import type { v2 } from "../../src/codex/index.js";
import { serverLine } from "../../src/features/commands/mcp-status.js";

function server(fields: Partial<v2.McpServerStatus>): v2.McpServerStatus {
  return {
    name: "s",
    runtimeStatus: "connected",
    pluginId: null,
    httpOrigin: null,
    serverInfo: null,
    serverCapabilities: null,
    toolListMeta: null,
    tools: {},
    toolsError: null,
    resources: [],
    resourceTemplates: [],
    authStatus: "unsupported",
    ...fields,
  };
}

describe("an MCP server's /mcp line", () => {
  it.each([
    [
      { runtimeStatus: "authenticationRequired", authStatus: "bearerToken" },
      "- **s**: needs sign-in; bearer token — the server refused its token: fix the token in the editor's settings for this server (a new session uses it)",
    ],
    [
      { runtimeStatus: "authenticationRequired", authStatus: "oAuth" },
      "- **s**: needs sign-in; signed in with OAuth — the sign-in expired or was refused: send `/mcp login s` to sign in again",
    ],
    [
      { runtimeStatus: "authenticationRequired", authStatus: "notLoggedIn", toolsError: "a long transport error" },
      "- **s**: needs sign-in; not signed in — send `/mcp login s` to sign in",
    ],
    [
      { runtimeStatus: "cancelled", toolsError: "x".repeat(300) },
      `- **s**: cancelled; no sign-in (${"x".repeat(200)}…) — fix what stops it, then send \`/mcp reconnect\``,
    ],
    [{ runtimeStatus: null, authStatus: "unknown" }, "- **s**: state unknown; sign-in state unknown"],
    [{ runtimeStatus: "starting" }, "- **s**: starting; no sign-in"],
  ] as const)("%j", (fields, line) => {
    expect(serverLine(server(fields))).toBe(line);
  });
});
