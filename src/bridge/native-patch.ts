// Codex's native apply_patch, when Codex rejects the patch (its context does not match), runs no
// item at all: the model sees the error and the user would see nothing. The raw response items
// (requested with experimentalRawEvents) show the call and its output; a call that never became an
// item is shown as one failed tool call.
import type { SessionUpdate } from "./view.js";
import type { v2 } from "../codex/index.js";
import { describePatchCall } from "./file-tools.js";
import { textContent } from "./view.js";

type ResponseItem = v2.RawResponseItemCompletedNotification["item"];

export class NativePatchWatcher {
  /** Native apply_patch calls seen in the model's output (call id -> patch), until their output. */
  private readonly calls = new Map<string, string>();

  clear(): void {
    this.calls.clear();
  }

  /** `announced`: whether an item with that id was shown (then the patch ran, or was asked about). */
  onRawItem(item: ResponseItem, announced: (id: string) => boolean, cwd: string | undefined): SessionUpdate[] {
    switch (item.type) {
      case "custom_tool_call":
        if (item.name === "apply_patch") this.calls.set(item.call_id, item.input);
        return [];
      case "function_call": {
        // (Not our MCP apply_patch: that one has a namespace, and an item of its own.)
        const input = item.name === "apply_patch" && !item.namespace ? patchFromArguments(item.arguments) : undefined;
        if (input !== undefined) this.calls.set(item.call_id, input);
        return [];
      }
      case "custom_tool_call_output":
      case "function_call_output": {
        const id = item.call_id;
        const input = id === undefined ? undefined : this.calls.get(id);
        if (id === undefined || input === undefined) return [];
        this.calls.delete(id);
        if (announced(id)) return [];
        const output = typeof item.output === "string" ? item.output : JSON.stringify(item.output);
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: id,
            status: "failed",
            ...describePatchCall(input, cwd),
            content: [textContent(output)],
            rawOutput: { output },
          },
        ];
      }
      default:
        return [];
    }
  }
}

function patchFromArguments(args: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === "object" && "input" in parsed && typeof parsed.input === "string")
      return parsed.input;
  } catch {
    // not JSON: not a patch call we can show
  }
  return undefined;
}
