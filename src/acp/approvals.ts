// Codex's approval requests -> ACP `session/request_permission` on the tool call the
// client already shows (toolCallId = the item id), and the user's choice back to Codex.
// "Reject" declines that one call and the turn goes on; only cancel stops the turn.
// "Always" is Codex's for-this-session decision, also remembered here so an identical
// later call is answered without asking again.
import * as acp from "@agentclientprotocol/sdk";
import { asToolItem, describeItem, type ItemOf, type ToolCallView } from "../bridge/index.js";
import type { v2 } from "../codex/index.js";
import type { AgentServices, ServerRequestHandler, SessionFeature } from "./features.js";
import { askPermission as ask, type Choice } from "./permission.js";
import type { AcpSession } from "./session.js";

type Params = Record<string, unknown>;

/** "Always" choices of one session: command texts, file paths, MCP server/tool pairs. */
type ApprovalState = {
  commands: Set<string>;
  paths: Set<string>;
  mcpTools: Set<string>;
};

function text(t: string): acp.ToolCallContent {
  return { type: "content", content: { type: "text", text: t } };
}

function quote(s: string, max = 80): string {
  const one = s.replace(/\s+/g, " ").trim();
  return `\`${one.length > max ? `${one.slice(0, max - 1)}…` : one}\``;
}

function viewFor(session: AcpSession, itemId: string): ToolCallView | undefined {
  const started = session.items.get(itemId);
  const item = started && asToolItem(started);
  return item ? describeItem(item, undefined, { cwd: session.cwd }) : undefined;
}

// ---- commands ------------------------------------------------------------------------------

type CommandDecision = v2.CommandExecutionApprovalDecision;

async function commandApproval(session: AcpSession, state: ApprovalState, params: Params, services: AgentServices): Promise<v2.CommandExecutionRequestApprovalResponse> {
  const itemId = String(params.itemId ?? params.approvalId ?? "");
  const command = typeof params.command === "string" ? params.command : "";
  if (command && state.commands.has(command)) return { decision: "acceptForSession" };

  const view = viewFor(session, itemId);
  const shown = view?.rawInput && typeof (view.rawInput as { command?: unknown }).command === "string" ? ((view.rawInput as { command: string }).command) : command;
  const available = (params.availableDecisions as CommandDecision[] | undefined) ?? ["accept", "acceptForSession", "decline"];
  const choices: Choice<CommandDecision>[] = [{ option: { optionId: "allow_once", name: "Allow once", kind: "allow_once" }, answer: "accept" }];
  choices.push({ option: { optionId: "allow_session", name: "Always allow this command in this session", kind: "allow_always" }, answer: "acceptForSession" });
  const amendment = available.find((d): d is Extract<CommandDecision, { acceptWithExecpolicyAmendment: unknown }> => typeof d === "object" && d !== null && "acceptWithExecpolicyAmendment" in d);
  const prefix = amendment?.acceptWithExecpolicyAmendment.execpolicy_amendment;
  if (amendment && Array.isArray(prefix) && prefix.length > 0) {
    choices.push({
      option: { optionId: "allow_prefix", name: `Always allow commands starting with ${quote(prefix.join(" "))} (saved in Codex's rules)`, kind: "allow_always" },
      answer: amendment,
    });
  }
  choices.push({ option: { optionId: "reject", name: "Reject", kind: "reject_once" }, answer: "decline" });

  const reason = typeof params.reason === "string" && params.reason ? params.reason : undefined;
  const network = params.networkApprovalContext as { host?: string } | null | undefined;
  const why = network?.host ? `Codex asks for network access to ${network.host}.` : reason ? `Codex asks to run this command: ${reason}` : "Codex asks to run this command.";
  const toolCall: acp.ToolCallUpdate = {
    toolCallId: itemId,
    title: view?.title ?? (shown || "Run a command"),
    kind: view?.kind ?? "execute",
    status: "pending",
    rawInput: view?.rawInput ?? { command: shown, cwd: params.cwd ?? null },
    content: [text(`${why}\n\n$ ${shown}`)],
  };
  const { answer, optionId } = await ask(session, services, toolCall, choices, "decline", "cancel");
  if (optionId === "allow_session" && command) state.commands.add(command);
  services.log.info({ sessionId: session.id, itemId, optionId: optionId ?? "cancelled" }, "command approval answered");
  return { decision: answer };
}

// ---- patches -------------------------------------------------------------------------------

async function fileChangeApproval(session: AcpSession, state: ApprovalState, params: Params, services: AgentServices): Promise<v2.FileChangeRequestApprovalResponse> {
  const itemId = String(params.itemId ?? "");
  const item = session.items.get(itemId);
  const paths = item?.type === "fileChange" ? item.changes.map((c) => c.path) : [];
  if (paths.length > 0 && paths.every((p) => state.paths.has(p))) return { decision: "acceptForSession" };
  const view = viewFor(session, itemId);
  const choices: Choice<v2.FileChangeApprovalDecision>[] = [
    { option: { optionId: "allow_once", name: "Allow this change", kind: "allow_once" }, answer: "accept" },
    {
      option: { optionId: "allow_session", name: paths.length === 1 ? "Always allow changes to this file in this session" : "Always allow changes to these files in this session", kind: "allow_always" },
      answer: "acceptForSession",
    },
    { option: { optionId: "reject", name: "Reject", kind: "reject_once" }, answer: "decline" },
  ];
  const reason = typeof params.reason === "string" && params.reason ? params.reason : undefined;
  const grantRoot = typeof params.grantRoot === "string" && params.grantRoot ? params.grantRoot : undefined;
  const toolCall: acp.ToolCallUpdate = {
    toolCallId: itemId,
    title: view?.title ?? "Apply a patch",
    kind: view?.kind ?? "edit",
    status: "pending",
    ...(view?.locations ? { locations: view.locations } : {}),
    // The diff the client already shows stays; add the reason only when there is no diff to show.
    ...(view?.content?.length
      ? {}
      : {
          content: [
            text(
              grantRoot
                ? `Codex asks to write under ${grantRoot}${reason ? `: ${reason}` : ""}`
                : reason
                  ? `Codex asks to apply this patch: ${reason}`
                  : "Codex asks to apply a patch.",
            ),
          ],
        }),
  };
  const { answer, optionId } = await ask(session, services, toolCall, choices, "decline", "cancel");
  if (optionId === "allow_session") for (const p of paths) state.paths.add(p);
  services.log.info({ sessionId: session.id, itemId, optionId: optionId ?? "cancelled" }, "patch approval answered");
  return { decision: answer };
}

// ---- MCP tool calls (other servers) ------------------------------------------------------

type ElicitationAnswer = v2.McpServerElicitationRequestResponse;

async function mcpToolApproval(session: AcpSession, state: ApprovalState, params: Params, services: AgentServices): Promise<ElicitationAnswer> {
  const meta = (params._meta ?? {}) as { tool_name?: string; tool_params?: unknown; tool_title?: string; persist?: unknown };
  const server = typeof params.serverName === "string" ? params.serverName : "mcp";
  const tool = typeof meta.tool_name === "string" ? meta.tool_name : "tool";
  const key = `${server}\u0000${tool}`;
  const accept: ElicitationAnswer = { action: "accept", content: {}, _meta: null };
  if (state.mcpTools.has(key)) return accept;
  // The item Codex announced for this call: the newest running call of that server and tool.
  const item = [...session.items.values()].reverse().find((i): i is ItemOf<"mcpToolCall"> => i.type === "mcpToolCall" && i.server === server && i.tool === tool);
  const view = item ? describeItem(item, undefined, { cwd: session.cwd }) : undefined;
  const persist = Array.isArray(meta.persist) ? (meta.persist as unknown[]) : typeof meta.persist === "string" ? [meta.persist] : [];
  const choices: Choice<ElicitationAnswer>[] = [
    { option: { optionId: "allow_once", name: "Allow once", kind: "allow_once" }, answer: accept },
    {
      option: { optionId: "allow_session", name: `Always allow ${server}: ${tool} in this session`, kind: "allow_always" },
      answer: { action: "accept", content: {}, _meta: persist.includes("session") ? { persist: "session" } : null },
    },
    { option: { optionId: "reject", name: "Reject", kind: "reject_once" }, answer: { action: "decline", content: null, _meta: null } },
  ];
  const toolCall: acp.ToolCallUpdate = {
    toolCallId: item?.id ?? `mcp-approval-${server}-${tool}`,
    title: view?.title ?? `${server}: ${tool}`,
    kind: view?.kind ?? "other",
    status: "pending",
    rawInput: meta.tool_params ?? item?.arguments ?? {},
    content: [text(`Codex asks to call the tool ${tool} of the MCP server ${server}.`)],
  };
  const { answer, optionId } = await ask(session, services, toolCall, choices, choices[2]!.answer, { action: "cancel", content: null, _meta: null });
  if (optionId === "allow_session") state.mcpTools.add(key);
  services.log.info({ sessionId: session.id, server, tool, optionId: optionId ?? "cancelled" }, "MCP tool approval answered");
  return answer;
}

/** Answers command, patch and MCP-tool approvals by asking the client. */
/** Codex's approval requests as permission prompts; remembers "always" per session. */
export function approvalsFeature(): SessionFeature {
  const states = new WeakMap<AcpSession, ApprovalState>();
  const stateOf = (session: AcpSession): ApprovalState => {
    let s = states.get(session);
    if (!s) {
      s = { commands: new Set(), paths: new Set(), mcpTools: new Set() };
      states.set(session, s);
    }
    return s;
  };
  const answer: ServerRequestHandler = (session, request, services) => {
    switch (request.method) {
      case "item/commandExecution/requestApproval":
        return commandApproval(session, stateOf(session), request.params, services);
      case "item/fileChange/requestApproval":
        return fileChangeApproval(session, stateOf(session), request.params, services);
      case "mcpServer/elicitation/request": {
        const meta = request.params._meta;
        const kind = meta && typeof meta === "object" && !Array.isArray(meta) ? meta.codex_approval_kind : undefined;
        if (kind !== "mcp_tool_call") return undefined;
        return mcpToolApproval(session, stateOf(session), request.params, services);
      }
      default:
        return undefined;
    }
  };
  return { name: "approvals", answer, detach: (session) => void states.delete(session) };
}
