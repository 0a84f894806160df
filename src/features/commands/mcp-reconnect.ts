// `/mcp reconnect [server]`: Codex's `config/mcpServer/reload`, then the servers' new state.
// What the reload does (codex 0.169, checked by tests/e2e/mcp-commands.test.ts): it re-reads the
// MCP configuration of every loaded thread, that is of every session of this agent, at once (it
// takes no server name); servers that are not connected (failed to start, or stopped since) are
// started again and report `starting` then `ready`/`failed`, connected ones keep running and
// report `ready`. So a name only picks the server to wait for and report.
import type { v2 } from "../../codex/index.js";
import type { AgentServices } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";
import { failureText, listServers, serversText } from "./mcp-status.js";

/** The longest wait for the servers to report after the reload (Codex's own start-up limit is shorter). */
const SETTLE_MS = 30_000;

const INTRO =
  "Codex reloaded its MCP servers (all at once, for every session: it cannot restart one alone). Servers that were not connected were started again; connected ones kept running.\n";

/**
 * Resolves once every server in `names` has reported the end of its start-up on this session's
 * thread (or after SETTLE_MS), with the names that went through `starting` (restarted).
 * Listening starts at once, before the reload is sent.
 */
function startupReports(
  session: AcpSession,
  names: ReadonlySet<string>,
): { settled: Promise<Set<string>>; stop(): void } {
  const pending = new Set(names);
  const restarted = new Set<string>();
  let finish!: () => void;
  const settled = new Promise<Set<string>>((resolve) => {
    finish = () => resolve(restarted);
  });
  const unsubscribe = session.on("notification", (n) => {
    if (n.method !== "mcpServer/startupStatus/updated" || !pending.has(n.params.name)) return;
    if (n.params.status === "starting") restarted.add(n.params.name);
    else pending.delete(n.params.name);
    if (pending.size === 0) stop();
  });
  const timer = setTimeout(() => stop(), SETTLE_MS);
  timer.unref();
  function stop(): void {
    clearTimeout(timer);
    unsubscribe();
    finish();
  }
  if (pending.size === 0) stop();
  return { settled, stop };
}

function unknownServerText(name: string, servers: readonly v2.McpServerStatus[]): string {
  const names = servers.map((s) => `\`${s.name}\``).join(", ");
  return `No MCP server named "${name}" in this session${names ? `; its servers: ${names}` : ""}.\n`;
}

/** `/mcp reconnect [name]`: reloads, waits for the servers to start, and says how they are now. */
export async function mcpReconnectText(session: AcpSession, name: string, services: AgentServices): Promise<string> {
  const log = { sessionId: session.id, ...(name ? { server: name } : {}) };
  let reports: ReturnType<typeof startupReports> | undefined;
  try {
    const client = await session.ensureAttached();
    const before = await listServers(client, session.threadId);
    if (name && !before.some((s) => s.name === name)) return unknownServerText(name, before);
    const chosen = before
      .filter((s) => (!name || s.name === name) && s.runtimeStatus !== "disabled")
      .map((s) => s.name);
    if (chosen.length === 0) return serversText(before);
    reports = startupReports(session, new Set(chosen));
    await client.call("config/mcpServer/reload", undefined);
    services.log.info(log, "MCP servers reloaded");
    const restarted = await reports.settled;
    const after = await listServers(client, session.threadId, chosen);
    return INTRO + serversText(after, new Map([...restarted].map((s) => [s, "restarted"])));
  } catch (err) {
    reports?.stop();
    services.log.warn({ ...log, err: String(err) }, "reloading the MCP servers failed");
    return failureText("reload the MCP servers", err);
  }
}
