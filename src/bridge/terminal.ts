// Commands as live terminal cards, in Zed's convention, for clients that declare it
// (`clientCapabilities._meta.terminal_output: true`): the tool call's content is
// `{type: "terminal", terminalId}` with `_meta.terminal_info`; output streams as
// `_meta.terminal_output` {terminal_id, data} (each chunk once, nothing accumulated here); the
// end carries `_meta.terminal_exit` {terminal_id, exit_code, signal}. Clients without the
// declaration get text content only (a terminal they cannot show would be an empty box).
import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { SessionUpdate } from "./view.js";
import { outputTail } from "./commands.js";
import { textContent, type ItemOf, type ToolCallView } from "./view.js";

type Command = ItemOf<"commandExecution">;
type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;

/** Whether a command shows as a terminal: the client shows them, and it is not a read or a search. */
export function isTerminalCommand(view: ToolCallView, terminalOutput: boolean | undefined): boolean {
  return terminalOutput === true && view.kind === "execute";
}

/** The command's view as a terminal card. */
export function terminalView(item: Command, view: ToolCallView): ToolCallView {
  const content: ToolCallContent[] = [{ type: "terminal", terminalId: item.id }];
  return { ...view, content, _meta: { terminal_info: { terminal_id: item.id, cwd: item.cwd } } };
}

/** One streamed chunk of output. */
export function terminalOutput(itemId: string, data: string): ToolCallUpdate {
  return { sessionUpdate: "tool_call_update", toolCallId: itemId, _meta: { terminal_output: { terminal_id: itemId, data } } };
}

/**
 * The end of a terminal command: its exit, and its output when none was streamed (history, or a
 * command that printed only at the end), capped like text output.
 */
export function terminalExit(item: Command, done: ToolCallUpdate, outputShown: boolean): ToolCallUpdate {
  const output = item.aggregatedOutput ?? "";
  const declined = item.status === "declined";
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: item.id,
    ...(done.status ? { status: done.status } : {}),
    ...(done.rawOutput !== undefined ? { rawOutput: done.rawOutput } : {}),
    // A rejected command never ran: say so instead of an empty terminal.
    ...(declined ? { content: [textContent("Not run: the command was rejected.")] } : {}),
    _meta: {
      ...(!outputShown && output ? { terminal_output: { terminal_id: item.id, data: outputTail(output) } } : {}),
      terminal_exit: { terminal_id: item.id, exit_code: item.exitCode, signal: null },
    },
  };
}
