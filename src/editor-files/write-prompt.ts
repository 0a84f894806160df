// The permission prompt for writes the write policy asks about (outside the workspace, a hard
// link or a protected folder, every write in Review Edits), on its own: what the user is shown and
// offered, and the session's "always allow", apart from the session wiring in feature.ts.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { askReason, type FileChange } from "./access/index.js";
import { FILE_TOOLS_SERVER } from "./contract/index.js";
import type { FileToolCalls } from "./tool-calls.js";
import { askPermission, writeRuleOf, type AcpSession, type AgentServices } from "../core/index.js";

/** What a prompt reads of its session's file tools, and where it keeps the session's "always allow". */
export type WritePromptState = {
  session: AcpSession;
  calls: FileToolCalls;
  /** "Always allow writes outside the workspace" was chosen in this session. */
  alwaysAllow: boolean;
};

/** What a change does to its file, as a prompt's title says it: emptying a file is not deleting it, and a Move removes where it was. */
function changeTitle(change: FileChange): string {
  if (change.movedFrom !== undefined) return `Move ${change.movedFrom} to ${change.path}`;
  if (change.deleted) return `Delete ${change.path}`;
  if (change.oldText === null) return `Create ${change.path}`;
  return `${change.newText === "" && change.oldText !== "" ? "Empty" : "Write"} ${change.path}`;
}

/** Asks the user about a write (or a patch) that touches files outside the workspace. Resolves true to go ahead. */
export async function askWrite(
  state: WritePromptState,
  services: AgentServices,
  changes: FileChange[],
  call: unknown,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const session = state.session;
  if (session.cancelling || signal?.aborted) return false;
  // "Always allow" is for files outside the workspace; a hard link or a protected folder (.git,
  // .codex, .agents) is asked about every time, and so is every write in the Review Edits mode
  // (the mode is the user's "ask me each time").
  const reviewing = writeRuleOf(session) === "review-edits";
  const reasons = changes.map((c) => askReason(c.path, session.roots));
  const onlyOutside = !reviewing && reasons.every((r) => r === undefined || r === "outside the workspace");
  if (state.alwaysAllow && onlyOutside) return true;
  const toolCallId = (await state.calls.itemIdOf(call)) ?? `${FILE_TOOLS_SERVER}-write-${Date.now().toString(36)}`;
  const first = changes[0];
  const why = reasons.find((r) => r !== undefined) ?? (reviewing ? "for your review" : "outside the workspace");
  const title =
    changes.length === 1 && first ? `${changeTitle(first)} (${why})` : `Change ${changes.length} files, some ${why}`;
  const toolCall: acp.ToolCallUpdate = {
    toolCallId,
    title,
    kind: "edit",
    status: "pending",
    locations: changes.map((c) => ({ path: c.path, line: 1 })),
    content: changes.map((c) => ({ type: "diff", path: c.path, oldText: c.oldText, newText: c.newText })),
  };
  const { answer } = await askPermission<"once" | "always" | "no">(session, services, {
    toolCall,
    choices: [
      { option: { optionId: "allow_once", name: "Allow", kind: "allow_once" }, answer: "once" },
      ...(!onlyOutside
        ? []
        : [
            {
              option: {
                optionId: "allow_always",
                name: "Always allow writes outside the workspace for this session",
                kind: "allow_always" as const,
              },
              answer: "always" as const,
            },
          ]),
      { option: { optionId: "reject_once", name: "Reject", kind: "reject_once" }, answer: "no" },
    ],
    onError: "no",
    cancelled: "no",
    withdraw: signal,
  });
  if (answer === "always") state.alwaysAllow = true;
  return answer !== "no";
}
