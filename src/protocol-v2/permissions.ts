// A v1 permission request as v2's: the prompt's title, and the tool call it is about as the
// request's subject, with its diffs as file states and a git patch, so a v2 client shows the
// change itself before anything is written (a refusal writes nothing: the agent waits on this
// answer before it writes).
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { SessionUpdateMapper } from "./updates.js";

type V2ToolCall = Extract<v2.SessionUpdate, { sessionUpdate: "tool_call_update" }>;

export function toV2Permission(
  request: v1.RequestPermissionRequest,
  mapper: SessionUpdateMapper,
): v2.RequestPermissionRequest {
  const mapped = mapper
    .map({ ...request.toolCall, sessionUpdate: "tool_call_update" })
    .find((u): u is V2ToolCall => u.sessionUpdate === "tool_call_update");
  const { sessionUpdate: _tag, ...asked } = mapped ?? {
    sessionUpdate: "tool_call_update",
    toolCallId: request.toolCall.toolCallId,
  };
  // v1 asks about the card the client already shows; v2's subject carries the change itself.
  const shown = asked.content ? undefined : mapper.shownChanges(asked.toolCallId);
  const toolCall = shown ? { ...asked, content: shown } : asked;
  return {
    sessionId: request.sessionId,
    title: request.toolCall.title ?? "Allow this?",
    subject: { type: "tool_call", toolCall },
    options: request.options.map((o) => ({
      optionId: o.optionId,
      name: o.name,
      kind: o.kind,
      ...(o._meta ? { _meta: o._meta } : {}),
    })),
    ...(request._meta ? { _meta: request._meta } : {}),
  };
}
