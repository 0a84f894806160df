// Commands as live terminal cards, in Zed's convention, for clients that declare it
// (`clientCapabilities._meta.terminal_output: true`): the tool call's content is
// `{type: "terminal", terminalId}` with `_meta.terminal_info`; output streams as
// `_meta.terminal_output` {terminal_id, data} (each chunk once, nothing accumulated here); the
// end carries `_meta.terminal_exit` {terminal_id, exit_code, signal}. Clients without the
// declaration get text content only (a terminal they cannot show would be an empty box).
// The official adapter's convention, for clients that declare `_meta.terminal_output_delta: true`
// (JetBrains' and others' clients): every command (reads and searches too) keeps its ordinary
// card, and its output streams as `_meta.terminal_output_delta` {terminal_id, data} chunks the
// client appends, each once; the end says the exit code and never repeats the output. A client
// that declares both gets Zed's terminals for commands (fed by terminal_output) and deltas for
// the rest: each output goes one way, once.
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
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: itemId,
    _meta: { terminal_output: { terminal_id: itemId, data } },
  };
}

/** One streamed chunk of a command's output, for a client that appends them. */
export function terminalOutputDelta(itemId: string, data: string): ToolCallUpdate {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: itemId,
    _meta: { terminal_output_delta: { terminal_id: itemId, data } },
  };
}

/**
 * The end of a command whose output a client appends (`done`: its ordinary end): how it ended,
 * without the output, which came as chunks; the output as one last chunk when none streamed
 * (a command that printed only at the end), capped like text output.
 */
export function deltaCommandEnd(item: Command, done: ToolCallUpdate, outputShown: boolean): ToolCallUpdate {
  const output = item.aggregatedOutput ?? "";
  const ending =
    item.status === "declined"
      ? "Not run: the command was rejected."
      : item.exitCode != null
        ? `Exit code: ${item.exitCode}`
        : undefined;
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: item.id,
    ...(done.status ? { status: done.status } : {}),
    ...(ending ? { content: [textContent(ending)] } : {}),
    ...(done.rawOutput !== undefined ? { rawOutput: done.rawOutput } : {}),
    ...(!outputShown && output
      ? { _meta: { terminal_output_delta: { terminal_id: item.id, data: outputTail(output) } } }
      : {}),
  };
}

/** Clears a terminal's screen and scrollback (the card is a terminal emulator: VT sequences are its language). */
const CLEAR_TERMINAL = "\x1b[H\x1b[2J\x1b[3J";

/**
 * The end of a terminal command: its exit, and its output when none was streamed (history, or a
 * command that printed only at the end), capped like text output. When less streamed than the
 * command printed (codex 0.169 sends no delta for a command's first output), the card is cleared
 * and given the whole output: it cannot be put in front of what it already shows.
 */
export function terminalExit(item: Command, done: ToolCallUpdate, streamed: number): ToolCallUpdate {
  const output = item.aggregatedOutput ?? "";
  const data = !output
    ? undefined
    : streamed === 0
      ? outputTail(output)
      : output.length > streamed
        ? `${CLEAR_TERMINAL}${outputTail(output)}`
        : undefined;
  const declined = item.status === "declined";
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: item.id,
    ...(done.status ? { status: done.status } : {}),
    ...(done.rawOutput !== undefined ? { rawOutput: done.rawOutput } : {}),
    // A rejected command never ran: say so instead of an empty terminal.
    ...(declined ? { content: [textContent("Not run: the command was rejected.")] } : {}),
    _meta: {
      ...(data ? { terminal_output: { terminal_id: item.id, data } } : {}),
      terminal_exit: { terminal_id: item.id, exit_code: item.exitCode, signal: null },
    },
  };
}
