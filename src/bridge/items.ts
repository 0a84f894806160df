// Maps app-server thread items to ACP tool calls: one tool call per item id,
// `tool_call` when the item starts, `tool_call_update` when it changes or ends.
import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk";

import { completeFileToolItem, describeFileToolItem } from "./file-tools.js";

export type Item = { type: string; id: string } & Record<string, unknown>;

/** Items shown as streamed text rather than as tool calls. */
const TEXT_ITEMS = new Set(["userMessage", "agentMessage", "reasoning", "plan", "hookPrompt", "contextCompaction"]);

export function isToolItem(item: Item): boolean {
  return !TEXT_ITEMS.has(item.type);
}

export type ToolCallView = {
  title: string;
  kind: ToolKind;
  locations?: ToolCallLocation[];
  rawInput?: unknown;
  content?: ToolCallContent[];
};

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** How a tool item looks when it starts. */
export function describeItem(item: Item): ToolCallView {
  switch (item.type) {
    case "commandExecution": {
      const command = str(item.command) ?? "command";
      return { title: command, kind: "execute", rawInput: { command, cwd: item.cwd } };
    }
    case "fileChange": {
      const changes = (item.changes as Array<{ path: string }> | undefined) ?? [];
      const paths = changes.map((c) => c.path);
      return {
        title: paths.length === 1 ? `Edit ${paths[0]}` : `Edit ${paths.length} files`,
        kind: "edit",
        locations: paths.map((p) => ({ path: p })),
        rawInput: { changes },
      };
    }
    case "mcpToolCall":
      return describeFileToolItem(item) ?? { title: `${str(item.server) ?? "mcp"}: ${str(item.tool) ?? "tool"}`, kind: "other", rawInput: item.arguments };
    case "webSearch":
      return { title: `Search the web${str(item.query) ? `: ${str(item.query)}` : ""}`, kind: "fetch", rawInput: { query: item.query } };
    case "imageView":
      return { title: `View image ${str(item.path) ?? ""}`.trim(), kind: "read", locations: str(item.path) ? [{ path: str(item.path)! }] : [] };
    default:
      return { title: item.type, kind: "other", rawInput: item };
  }
}

export function statusOf(item: Item): ToolCallStatus {
  switch (item.status) {
    case "completed":
      return "completed";
    case "failed":
    case "declined":
      return "failed";
    case "inProgress":
      return "in_progress";
    default:
      return "completed";
  }
}

/** The final update of a tool item. */
export function completedItemUpdate(item: Item): Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }> {
  const fileTool = completeFileToolItem(item);
  if (fileTool) return fileTool;
  const content: ToolCallContent[] = [];
  let rawOutput: unknown;
  switch (item.type) {
    case "commandExecution": {
      const output = str(item.aggregatedOutput);
      if (output) content.push({ type: "content", content: { type: "text", text: output } });
      rawOutput = { exitCode: item.exitCode ?? null, output: output ?? "" };
      break;
    }
    case "mcpToolCall": {
      const result = item.result as { content?: unknown[]; structuredContent?: unknown } | null | undefined;
      const error = item.error as { message?: string } | null | undefined;
      for (const block of result?.content ?? []) {
        const b = block as { type?: string; text?: string };
        if (b.type === "text" && typeof b.text === "string") content.push({ type: "content", content: { type: "text", text: b.text } });
      }
      if (error?.message) content.push({ type: "content", content: { type: "text", text: error.message } });
      rawOutput = error ? { error } : result;
      break;
    }
    default:
      rawOutput = undefined;
  }
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: item.id,
    status: statusOf(item),
    ...(content.length ? { content } : {}),
    ...(rawOutput !== undefined ? { rawOutput } : {}),
  };
}
