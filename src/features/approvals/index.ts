// Codex's approval requests (commands, patches, extra permissions, other MCP servers' tools) ->
// ACP `session/request_permission` on the tool call the client already shows (toolCallId = the
// item id), with the options Codex offers for that request, and the user's choice back to Codex.
// "Reject" declines that one call and the turn goes on; "No, and tell Codex what to do
// differently" and a cancel stop the turn. "Always for this session" is also remembered here so
// an identical later call is answered without asking again.
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  askingCommandUpdate,
  asToolItem,
  describeItem,
  textContent as text,
  type Item,
  type ItemOf,
  type ToolCallView,
} from "../../bridge/index.js";
import type { ToolApprovalMeta, v2 } from "../../codex/index.js";
import type { AgentServices, SessionFeature } from "../../core/index.js";
import { route } from "../../core/index.js";
import { toolApprovalMetaSchema } from "../../codex/index.js";
import { commandChoices, describePermissions, fileChangeChoices, OPTION, permissionChoices } from "./options.js";
import { askPermission as ask, type Choice } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";

/** "Always" choices of one session: command texts, file paths, MCP server/tool pairs. */
type ApprovalState = {
  commands: Set<string>;
  paths: Set<string>;
  mcpTools: Set<string>;
};

/**
 * How the item asking looks. A subagent's item was never shown to the client as a tool call:
 * its view carries everything (the diff included) and its title names the subagent.
 */
function viewFor(
  session: AcpSession,
  itemId: string,
): (ToolCallView & { unseen?: boolean; subagent?: string }) | undefined {
  const child = session.childItems.get(itemId);
  const started = startedItem(session, itemId);
  const item = started && asToolItem(started);
  if (!item) return undefined;
  const view = describeItem(item, undefined, { cwd: session.cwd });
  if (!child || session.items.has(itemId)) return view;
  // The client makes a tool call of this request: it ends when the item does.
  session.childItems.onEnd(
    itemId,
    (status) =>
      void session.send({ sessionUpdate: "tool_call_update", toolCallId: itemId, status }).catch(() => undefined),
  );
  return { ...view, title: `${child.subagent} · ${view.title}`, unseen: true, subagent: child.subagent };
}

/** A started item of the session or of one of its subagents. */
function startedItem(session: AcpSession, itemId: string): Item | undefined {
  return session.items.get(itemId) ?? session.childItems.get(itemId)?.item;
}

// ---- commands ------------------------------------------------------------------------------

async function commandApproval(
  session: AcpSession,
  state: ApprovalState,
  params: v2.CommandExecutionRequestApprovalParams,
  services: AgentServices,
  withdrawn?: AbortSignal,
): Promise<v2.CommandExecutionRequestApprovalResponse> {
  const itemId = params.itemId;
  const command = params.command ?? "";
  // A command that asks is `execute` on the card the client shows, before it is asked (or answered
  // from "always"); the outbox delivers this before the request.
  const started = session.items.get(itemId);
  const asking = started?.type === "commandExecution" ? askingCommandUpdate(started) : undefined;
  if (asking) void session.send(asking).catch(() => undefined);
  const choices = commandChoices(params);
  const forSession = choices.find((c) => c.answer === "acceptForSession");
  // What "always" was given for: the command, and for network access the host too.
  const remembered = `${params.networkApprovalContext?.host ?? ""}\u0000${command}`;
  if (command && forSession && state.commands.has(remembered)) return { decision: "acceptForSession" };

  const view = viewFor(session, itemId);
  const rawCommand =
    view?.rawInput && typeof view.rawInput === "object" && "command" in view.rawInput
      ? view.rawInput.command
      : undefined;
  const shown = typeof rawCommand === "string" ? rawCommand : command;
  const host = params.networkApprovalContext?.host;
  const why = host
    ? `Codex asks for network access to ${host}.`
    : params.reason
      ? `Codex asks to run this command: ${params.reason}`
      : "Codex asks to run this command.";
  // Always `execute`, titled with the literal command: Codex's parser calls `find . -delete` a
  // search, and clients approve reads and searches on their own (acpx's default policy does).
  const literal = shown || "Run a command";
  const toolCall: acp.ToolCallUpdate = {
    toolCallId: itemId,
    title: view?.subagent ? `${view.subagent} · ${literal}` : literal,
    kind: "execute",
    status: "pending",
    rawInput: view?.rawInput ?? { command: shown, cwd: params.cwd ?? null },
    content: [text(`${why}\n\n$ ${shown}`)],
  };
  const { answer, optionId } = await ask(session, services, {
    toolCall,
    choices,
    onError: "decline",
    cancelled: "cancel",
    withdraw: withdrawn,
  });
  if (optionId === OPTION.session && command) state.commands.add(remembered);
  services.log.info({ sessionId: session.id, itemId, optionId: optionId ?? "cancelled" }, "command approval answered");
  return { decision: answer };
}

// ---- extra permissions ---------------------------------------------------------------------

async function permissionsApproval(
  session: AcpSession,
  params: v2.PermissionsRequestApprovalParams,
  services: AgentServices,
  withdrawn?: AbortSignal,
): Promise<v2.PermissionsRequestApprovalResponse> {
  const choices = permissionChoices(params.permissions);
  const wanted = describePermissions(params.permissions);
  const toolCall: acp.ToolCallUpdate = {
    toolCallId: params.itemId,
    title: "Codex asks for more permissions",
    kind: "other",
    status: "pending",
    rawInput: { permissions: params.permissions, reason: params.reason, cwd: params.cwd },
    content: [
      text(
        `Codex asks for${params.reason ? ` (${params.reason})` : ""}:\n${wanted.join("\n") || "- (nothing it could name)"}`,
      ),
    ],
  };
  const refused = choices.at(-1)!.answer;
  const { answer, optionId } = await ask(session, services, {
    toolCall,
    choices,
    onError: refused,
    cancelled: refused,
    withdraw: withdrawn,
  });
  services.log.info(
    { sessionId: session.id, itemId: params.itemId, optionId: optionId ?? "cancelled" },
    "permissions request answered",
  );
  return answer;
}

// ---- patches -------------------------------------------------------------------------------

async function fileChangeApproval(
  session: AcpSession,
  state: ApprovalState,
  params: v2.FileChangeRequestApprovalParams,
  services: AgentServices,
  withdrawn?: AbortSignal,
): Promise<v2.FileChangeRequestApprovalResponse> {
  const itemId = params.itemId;
  const item = startedItem(session, itemId);
  const paths = item?.type === "fileChange" ? item.changes.map((c) => c.path) : [];
  // A request for write access under a root is asked about whatever was allowed before.
  if (!params.grantRoot && paths.length > 0 && paths.every((p) => state.paths.has(p)))
    return { decision: "acceptForSession" };
  const view = viewFor(session, itemId);
  const choices = fileChangeChoices(paths.length);
  const reason = params.reason || undefined;
  const grantRoot = params.grantRoot || undefined;
  const toolCall: acp.ToolCallUpdate = {
    toolCallId: itemId,
    title: view?.title ?? "Apply a patch",
    kind: view?.kind ?? "edit",
    status: "pending",
    ...(view?.locations ? { locations: view.locations } : {}),
    // The diff the client already shows stays; add the reason only when there is no diff to show.
    ...(view?.content?.length
      ? view.unseen
        ? { content: view.content }
        : {}
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
  const { answer, optionId } = await ask(session, services, {
    toolCall,
    choices,
    onError: "decline",
    cancelled: "cancel",
    withdraw: withdrawn,
  });
  if (optionId === OPTION.session) for (const p of paths) state.paths.add(p);
  services.log.info({ sessionId: session.id, itemId, optionId: optionId ?? "cancelled" }, "patch approval answered");
  return { decision: answer };
}

// ---- MCP tool calls (other servers) ------------------------------------------------------

type ElicitationAnswer = v2.McpServerElicitationRequestResponse;

async function mcpToolApproval(
  session: AcpSession,
  state: ApprovalState,
  server: string,
  meta: ToolApprovalMeta,
  services: AgentServices,
  withdrawn?: AbortSignal,
): Promise<ElicitationAnswer> {
  const tool = meta.tool_name ?? "tool";
  const key = `${server}\u0000${tool}`;
  const accept: ElicitationAnswer = { action: "accept", content: {}, _meta: null };
  if (state.mcpTools.has(key)) return accept;
  // The item Codex announced for this call: the newest running call of that server and tool.
  const item = [...session.items.values()]
    .reverse()
    .find((i): i is ItemOf<"mcpToolCall"> => i.type === "mcpToolCall" && i.server === server && i.tool === tool);
  const view = item ? describeItem(item, undefined, { cwd: session.cwd }) : undefined;
  const persist = Array.isArray(meta.persist) ? meta.persist : meta.persist ? [meta.persist] : [];
  const choices: Choice<ElicitationAnswer>[] = [
    { option: { optionId: "allow_once", name: "Allow once", kind: "allow_once" }, answer: accept },
    {
      option: {
        optionId: "allow_session",
        name: `Always allow ${server}: ${tool} in this session`,
        kind: "allow_always",
      },
      answer: { action: "accept", content: {}, _meta: persist.includes("session") ? { persist: "session" } : null },
    },
    {
      option: { optionId: "reject", name: "Reject", kind: "reject_once" },
      answer: { action: "decline", content: null, _meta: null },
    },
  ];
  const toolCall: acp.ToolCallUpdate = {
    toolCallId: item?.id ?? `mcp-approval-${server}-${tool}`,
    title: view?.title ?? `${server}: ${tool}`,
    kind: view?.kind ?? "other",
    status: "pending",
    rawInput: meta.tool_params ?? item?.arguments ?? {},
    content: [text(`Codex asks to call the tool ${tool} of the MCP server ${server}.`)],
  };
  const { answer, optionId } = await ask(session, services, {
    toolCall,
    choices,
    onError: choices[2]!.answer,
    cancelled: { action: "cancel", content: null, _meta: null },
    withdraw: withdrawn,
  });
  if (optionId === OPTION.session) state.mcpTools.add(key);
  services.log.info(
    { sessionId: session.id, server, tool, optionId: optionId ?? "cancelled" },
    "MCP tool approval answered",
  );
  return answer;
}

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
  const requestRoutes = [
    route("item/commandExecution/requestApproval", (session, request, services, withdrawn) =>
      commandApproval(session, stateOf(session), request.params, services, withdrawn),
    ),
    route("item/fileChange/requestApproval", (session, request, services, withdrawn) =>
      fileChangeApproval(session, stateOf(session), request.params, services, withdrawn),
    ),
    route("item/permissions/requestApproval", (session, request, services, withdrawn) =>
      permissionsApproval(session, request.params, services, withdrawn),
    ),
    // Routed here only when its _meta is a tool approval (request-routes.ts): parsed again for its fields.
    route(
      "mcpServer/elicitation/request",
      (session, request, services, withdrawn) =>
        mcpToolApproval(
          session,
          stateOf(session),
          request.params.serverName,
          toolApprovalMetaSchema.parse(request.params._meta),
          services,
          withdrawn,
        ),
      "toolApproval",
    ),
  ];
  return { name: "approvals", requestRoutes, detach: (session) => void states.delete(session) };
}
