// `/mcp`: the session's MCP servers as Codex sees them (mcpServerStatus/list), for the user.
import { z } from "zod";
import type { AgentServices } from "../../core/feature-api.js";
import type { AcpSession } from "../../core/session/session.js";

const serverStatusListSchema = z.looseObject({
  data: z.array(z.looseObject({ name: z.string(), runtimeStatus: z.string().nullable(), tools: z.record(z.string(), z.unknown()).default({}), toolsError: z.string().nullable().optional() })),
  nextCursor: z.string().nullable().optional(),
});

/** `/mcp`: the session's MCP servers, their state and tool counts, for the user. */
export async function mcpStatusText(session: AcpSession, services: AgentServices): Promise<string> {
  try {
    const client = await services.host.client();
    const res = serverStatusListSchema.parse(await client.call("mcpServerStatus/list", { threadId: session.id, detail: "toolsAndAuthOnly" }));
    if (res.data.length === 0) return "No MCP servers in this session.\n";
    const lines = res.data.map((s) => {
      const tools = Object.keys(s.tools).length;
      const state = s.runtimeStatus ?? "unknown";
      return `- **${s.name}**: ${state}${tools ? `, ${tools} tool${tools === 1 ? "" : "s"}` : ""}${s.toolsError ? ` (${s.toolsError})` : ""}`;
    });
    return `**MCP servers**\n${lines.join("\n")}\n`;
  } catch (err) {
    services.log.warn({ err: String(err), sessionId: session.id }, "mcpServerStatus/list failed");
    return `Codex could not list the MCP servers: ${err instanceof Error ? err.message : String(err)}\n`;
  }
}
