// The app-server requests this adapter makes, each with its params and result types from Codex's
// generated schema (the generator gives the types but no method -> result map; this is that map).
import type { ApplyPatchApprovalResponse } from "./generated/ApplyPatchApprovalResponse.js";
import type { ExecCommandApprovalResponse } from "./generated/ExecCommandApprovalResponse.js";
import type * as v2 from "./generated/v2/index.js";
import { z } from "zod";
import type { CodexServerRequest } from "./messages.js";

export type CodexRequests = {
  "thread/start": { params: v2.ThreadStartParams; result: v2.ThreadStartResponse };
  "thread/resume": { params: v2.ThreadResumeParams; result: v2.ThreadResumeResponse };
  "thread/read": { params: v2.ThreadReadParams; result: v2.ThreadReadResponse };
  "thread/list": { params: v2.ThreadListParams; result: v2.ThreadListResponse };
  "thread/turns/list": { params: v2.ThreadTurnsListParams; result: v2.ThreadTurnsListResponse };
  "thread/items/list": { params: v2.ThreadItemsListParams; result: v2.ThreadItemsListResponse };
  "thread/fork": { params: v2.ThreadForkParams; result: v2.ThreadForkResponse };
  "thread/archive": { params: v2.ThreadArchiveParams; result: v2.ThreadArchiveResponse };
  "thread/unarchive": { params: v2.ThreadUnarchiveParams; result: v2.ThreadUnarchiveResponse };
  "thread/delete": { params: v2.ThreadDeleteParams; result: v2.ThreadDeleteResponse };
  "thread/name/set": { params: v2.ThreadSetNameParams; result: v2.ThreadSetNameResponse };
  "thread/unsubscribe": { params: v2.ThreadUnsubscribeParams; result: v2.ThreadUnsubscribeResponse };
  "thread/settings/update": { params: v2.ThreadSettingsUpdateParams; result: v2.ThreadSettingsUpdateResponse };
  "thread/backgroundTerminals/terminate": {
    params: v2.ThreadBackgroundTerminalsTerminateParams;
    result: v2.ThreadBackgroundTerminalsTerminateResponse;
  };
  "thread/compact/start": { params: v2.ThreadCompactStartParams; result: v2.ThreadCompactStartResponse };
  "thread/goal/get": { params: v2.ThreadGoalGetParams; result: v2.ThreadGoalGetResponse };
  "thread/goal/set": { params: v2.ThreadGoalSetParams; result: v2.ThreadGoalSetResponse };
  "thread/goal/clear": { params: v2.ThreadGoalClearParams; result: v2.ThreadGoalClearResponse };
  "thread/sample": { params: v2.ThreadSampleParams; result: v2.ThreadSampleResponse };
  "turn/start": { params: v2.TurnStartParams; result: v2.TurnStartResponse };
  "turn/interrupt": { params: v2.TurnInterruptParams; result: v2.TurnInterruptResponse };
  "turn/steer": { params: v2.TurnSteerParams; result: v2.TurnSteerResponse };
  "collaborationMode/list": { params: v2.CollaborationModeListParams; result: v2.CollaborationModeListResponse };
  "review/start": { params: v2.ReviewStartParams; result: v2.ReviewStartResponse };
  "model/list": { params: v2.ModelListParams; result: v2.ModelListResponse };
  "modelProvider/list": { params: v2.ModelProviderListParams; result: v2.ModelProviderListResponse };
  "account/read": { params: v2.GetAccountParams; result: v2.GetAccountResponse };
  "account/rateLimits/read": { params: v2.GetAccountRateLimitsParams; result: v2.GetAccountRateLimitsResponse };
  "account/login/start": { params: v2.LoginAccountParams; result: v2.LoginAccountResponse };
  "account/login/cancel": { params: v2.CancelLoginAccountParams; result: v2.CancelLoginAccountResponse };
  "account/logout": { params: undefined; result: v2.LogoutAccountResponse };
  "mcpServerStatus/list": { params: v2.ListMcpServerStatusParams; result: v2.ListMcpServerStatusResponse };
  "config/mcpServer/reload": { params: undefined; result: v2.McpServerRefreshResponse };
  "mcpServer/oauth/login": { params: v2.McpServerOauthLoginParams; result: v2.McpServerOauthLoginResponse };
  "skills/list": { params: v2.SkillsListParams; result: v2.SkillsListResponse };
  "config/read": { params: v2.ConfigReadParams; result: v2.ConfigReadResponse };
};

export type CodexMethod = keyof CodexRequests;

/** What Codex expects back for each server->client request. */
export type CodexServerAnswers = {
  "item/commandExecution/requestApproval": v2.CommandExecutionRequestApprovalResponse;
  "item/fileChange/requestApproval": v2.FileChangeRequestApprovalResponse;
  "item/tool/requestUserInput": v2.ToolRequestUserInputResponse;
  "mcpServer/elicitation/request": v2.McpServerElicitationRequestResponse;
  "item/permissions/requestApproval": v2.PermissionsRequestApprovalResponse;
  "item/tool/call": v2.DynamicToolCallResponse;
  "account/chatgptAuthTokens/refresh": v2.ChatgptAuthTokensRefreshResponse;
  "attestation/generate": v2.AttestationGenerateResponse;
  applyPatchApproval: ApplyPatchApprovalResponse;
  execCommandApproval: ExecCommandApprovalResponse;
};
export type CodexServerAnswer = CodexServerAnswers[keyof CodexServerAnswers];

/**
 * The answer for a request nobody handled: a refusal in the shape Codex expects, or undefined
 * when no refusal can be expressed as a result (then the request is answered with an error).
 */
export function refusalFor(request: CodexServerRequest): CodexServerAnswer | undefined {
  switch (request.method) {
    case "item/commandExecution/requestApproval":
    case "item/fileChange/requestApproval":
      return { decision: "decline" };
    case "item/tool/requestUserInput":
      return { answers: {} };
    case "mcpServer/elicitation/request":
      return { action: "decline", content: null, _meta: null };
    case "item/permissions/requestApproval":
      return { permissions: {}, scope: "turn" };
    case "item/tool/call":
      return {
        contentItems: [{ type: "inputText", text: "This tool is not available in this editor." }],
        success: false,
      };
    case "applyPatchApproval":
    case "execCommandApproval":
      return { decision: { denied: { rejection: "No one could be asked to approve this." } } };
    case "account/chatgptAuthTokens/refresh":
    case "attestation/generate":
      return undefined;
    default:
      return unknownRequest(request);
  }
}

/** Compile time: every request kind has a case. Run time: a newer Codex's request gets an error. */
function unknownRequest(_request: never): undefined {
  return undefined;
}

/** What Codex puts in `_meta` of an MCP elicitation that asks to approve a tool call (not in its schema: checked here). */
export const toolApprovalMetaSchema = z.looseObject({
  codex_approval_kind: z.literal("mcp_tool_call"),
  tool_name: z.string().optional(),
  tool_params: z.unknown().optional(),
  persist: z.union([z.string(), z.array(z.string())]).optional(),
});
export type ToolApprovalMeta = z.infer<typeof toolApprovalMetaSchema>;
