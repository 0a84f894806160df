// Maps Codex's thread items (typed from its generated schema) to ACP tool calls: one tool call
// per item id, `tool_call` when the item starts, `tool_call_update` when it ends. Kinds say what
// a call does (read/search/edit/fetch/execute...), not which tool ran it. The switches are
// exhaustive over Codex's item kinds: a kind added by a newer Codex fails `tsc` here, and at run
// time (an older build against a newer Codex) it is shown generically and reported once.
import type { ToolCallContent, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk/unstable";
import type { SessionUpdate } from "./view.js";
import { describeCommand, outputTail } from "./commands.js";
import { deltaCommandEnd, isTerminalCommand, terminalExit, terminalView } from "./terminal.js";
import { describeFileChange, fileChangeDiffs } from "./file-changes.js";
import { completeFileToolItem, describeFileToolItem } from "./file-tools.js";
import { objectFields } from "../codex/index.js";
import {
  textContent as text,
  type FileBefore,
  type Item,
  type ItemOf,
  type TextFiles,
  type ToolCallView,
} from "./view.js";

export type { Item, ToolCallView };

/** What the mappings need besides the item. */
export type ItemContext = {
  /** Reads files for full diffs; absent (history) = never read. */
  files?: TextFiles;
  /** The session's working directory (relative paths of a patch). */
  cwd?: string;
  /** The client shows terminal cards (Zed's `_meta.terminal_output`): commands become terminals. */
  terminalOutput?: boolean;
  /** The client appends output chunks (`_meta.terminal_output_delta`): a command's output is those, not content. */
  terminalOutputDelta?: boolean;
  /** Called with the kind of an item this build does not know (a newer Codex). */
  onUnknown?: (kind: string) => void;
};

/** Items shown as text (or not at all), never as tool calls. */
type TextItem = ItemOf<
  | "userMessage"
  | "agentMessage"
  | "reasoning"
  | "plan"
  | "hookPrompt"
  | "contextCompaction"
  | "enteredReviewMode"
  | "exitedReviewMode"
  | "functionCallOutput"
>;
/** Items shown as one tool call each. */
export type ToolItem = Exclude<Item, TextItem>;

/** The item as a tool call's source, or undefined for items shown as text (or not at all). */
export function asToolItem(item: Item, ctx: ItemContext = {}): ToolItem | undefined {
  switch (item.type) {
    case "userMessage":
    case "agentMessage":
    case "reasoning":
    case "plan":
    case "hookPrompt":
    case "contextCompaction":
    case "enteredReviewMode":
    case "exitedReviewMode":
    case "functionCallOutput":
      return undefined;
    case "sleep":
    case "subAgentActivity":
    case "commandExecution":
    case "fileChange":
    case "mcpToolCall":
    case "dynamicToolCall":
    case "collabAgentToolCall":
    case "webSearch":
    case "imageView":
    case "imageGeneration":
      return item;
    default:
      // A newer Codex's kind: shown generically as a tool call, and reported.
      unknownKind(item, ctx);
      return item;
  }
}

const READ_WORDS =
  /(^|[_\-.])(read|get|list|fetch_file|cat|show|view|describe|info|status|query|find|lookup|open)([_\-.]|$)/i;
const SEARCH_WORDS = /(search|find|grep|glob)/i;
const FETCH_WORDS = /(fetch|http|url|web|browse|download|request)/i;
const EDIT_WORDS = /(write|edit|update|create|patch|replace|insert|append|rename|save|set)/i;
const DELETE_WORDS = /(delete|remove|unlink|drop|rm)([_\-.]|$)/i;
const MOVE_WORDS = /(^|[_\-.])(move|mv|rename)([_\-.]|$)/i;

/** A sensible kind for another MCP server's tool, from its read-only hint and its name. */
export function mcpToolKind(tool: string, readOnlyHint: boolean | null | undefined): ToolKind {
  if (SEARCH_WORDS.test(tool)) return "search";
  if (FETCH_WORDS.test(tool)) return "fetch";
  if (readOnlyHint === true) return "read";
  if (DELETE_WORDS.test(tool)) return "delete";
  if (MOVE_WORDS.test(tool)) return "move";
  if (EDIT_WORDS.test(tool)) return "edit";
  if (READ_WORDS.test(tool)) return "read";
  return "other";
}

/** How a tool item looks when it starts, with the tool's programmatic name (ACP's `ToolCall.name`). */
export function describeItem(item: ToolItem, before: FileBefore | undefined, ctx: ItemContext = {}): ToolCallView {
  const name = toolName(item);
  return { ...viewOf(item, before, ctx), ...(name ? { name } : {}) };
}

/** The name the model called the tool by. */
function toolName(item: ToolItem): string | undefined {
  switch (item.type) {
    case "commandExecution":
      return "exec_command";
    case "fileChange":
      return "apply_patch";
    case "mcpToolCall":
    case "dynamicToolCall":
    case "collabAgentToolCall":
      return item.tool;
    case "webSearch":
      return "web_search";
    case "imageView":
      return "view_image";
    case "imageGeneration":
      return "image_generation";
    default:
      return undefined;
  }
}

function viewOf(item: ToolItem, before: FileBefore | undefined, ctx: ItemContext): ToolCallView {
  switch (item.type) {
    case "commandExecution": {
      const view = describeCommand(item.command, item.cwd, item.commandActions);
      return isTerminalCommand(view, ctx.terminalOutput) ? terminalView(item, view) : view;
    }
    case "fileChange":
      return describeFileChange(item, before, ctx.files);
    case "mcpToolCall":
      return (
        describeFileToolItem(item, ctx.cwd) ?? {
          title: `${item.server}: ${item.tool}`,
          kind: mcpToolKind(item.tool, item.readOnlyHint),
          rawInput: item.arguments ?? {},
        }
      );
    case "dynamicToolCall":
      return {
        title: item.namespace ? `${item.namespace}: ${item.tool}` : item.tool,
        kind: mcpToolKind(item.tool, null),
        rawInput: item.arguments ?? {},
      };
    case "webSearch":
      return {
        title: item.query ? `Search the web: ${item.query}` : "Search the web",
        kind: "fetch",
        rawInput: { query: item.query },
      };
    case "imageView":
      return {
        title: item.path ? `View image ${item.path}` : "View image",
        kind: "read",
        locations: item.path ? [{ path: item.path }] : [],
        rawInput: { path: item.path },
      };
    case "collabAgentToolCall":
      return {
        title: collabTitle(item),
        kind: "think",
        rawInput: { prompt: item.prompt, ...(item.receiverThreadIds.length ? { agents: item.receiverThreadIds } : {}) },
      };
    case "subAgentActivity":
      return {
        title: `Subagent ${item.agentPath}: ${item.kind}`,
        kind: "think",
        rawInput: { agentThreadId: item.agentThreadId },
      };
    case "imageGeneration":
      // The prompt only: the image itself (base64) never goes into rawInput.
      return { title: "Generate an image", kind: "other", rawInput: { prompt: item.revisedPrompt } };
    case "sleep":
      return {
        title: `Wait ${Math.round(item.durationMs / 100) / 10} s`,
        kind: "other",
        rawInput: { durationMs: item.durationMs },
      };
    default:
      return { title: unknownKind(item, ctx), kind: "other" };
  }
}

function statusOf(item: Item): ToolCallStatus {
  // A generated image that failed says so in `failure`, whatever its status string.
  if (item.type === "imageGeneration" && item.failure) return "failed";
  const status = "status" in item ? item.status : undefined;
  switch (status) {
    case "inProgress":
      return "in_progress";
    case "failed":
    case "declined":
    case "interrupted":
      return "failed";
    case "completed":
      return "completed";
    default:
      return item.type === "mcpToolCall" && item.error ? "failed" : "completed";
  }
}

/** The final update of a tool item. */
export function completedItemUpdate(
  item: ToolItem,
  before: FileBefore | undefined,
  ctx: ItemContext = {},
  /** How much of a terminal command's output already streamed to the client (characters). */
  streamed = 0,
): Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }> {
  if (
    item.type === "commandExecution" &&
    isTerminalCommand(describeCommand(item.command, item.cwd, item.commandActions), ctx.terminalOutput)
  ) {
    return terminalExit(
      item,
      completedItemUpdate(item, before, { ...ctx, terminalOutput: false, terminalOutputDelta: false }),
      streamed,
    );
  }
  if (item.type === "commandExecution" && ctx.terminalOutputDelta) {
    return deltaCommandEnd(
      item,
      completedItemUpdate(item, before, { ...ctx, terminalOutputDelta: false }),
      streamed > 0,
    );
  }
  const content: ToolCallContent[] = [];
  let rawOutput: unknown;
  switch (item.type) {
    case "commandExecution": {
      const output = item.aggregatedOutput ?? "";
      if (output) content.push(text(outputTail(output)));
      if (item.status === "declined") content.push(text("Not run: the command was rejected."));
      else if (item.exitCode != null) content.push(text(`Exit code: ${item.exitCode}`));
      // The output is sent once (in content, or a terminal's output); rawOutput says how it ended.
      rawOutput = {
        exitCode: item.exitCode,
        ...(typeof item.durationMs === "number" ? { durationMs: item.durationMs } : {}),
      };
      break;
    }
    case "fileChange": {
      if (item.status === "completed") content.push(...fileChangeDiffs(item, before, true, ctx.files));
      else if (item.status === "declined") content.push(text("Not applied: the change was rejected."));
      else if (item.status === "failed") content.push(text("The patch could not be applied."));
      rawOutput = { status: item.status };
      break;
    }
    case "mcpToolCall": {
      const own = completeFileToolItem(item);
      if (own) return own;
      for (const block of item.result?.content ?? []) content.push(...mcpContent(block));
      if (content.length === 0 && item.result?.structuredContent != null)
        content.push(text(JSON.stringify(item.result.structuredContent, null, 2)));
      if (item.error?.message) content.push(text(item.error.message));
      rawOutput = item.error ? { error: item.error } : item.result;
      break;
    }
    case "dynamicToolCall": {
      for (const c of item.contentItems ?? []) if (c.type === "inputText") content.push(text(c.text));
      rawOutput = { success: item.success };
      break;
    }
    case "webSearch":
      rawOutput = { action: item.action };
      break;
    case "collabAgentToolCall":
      content.push(...collabStates(item));
      break;
    case "imageGeneration":
      content.push(...generatedImage(item));
      rawOutput = { status: item.status, ...(item.savedPath ? { savedPath: item.savedPath } : {}) };
      break;
    case "imageView":
    case "sleep":
    case "subAgentActivity":
      break;
    default:
      unknownKind(item, ctx);
  }
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: item.id,
    status: statusOf(item),
    ...(content.length ? { content } : {}),
    ...(rawOutput !== undefined ? { rawOutput } : {}),
  };
}

/** What a collab tool call does, in words (the subagents themselves are cards of their own: src/features/subagents.ts). */
function collabTitle(item: ItemOf<"collabAgentToolCall">): string {
  const n = item.receiverThreadIds.length;
  const them = n > 1 ? `${n} subagents` : "a subagent";
  switch (item.tool) {
    case "spawnAgent":
      return "Start a subagent";
    case "wait":
      return `Wait for ${them}`;
    case "sendInput":
    case "sendMessage":
    case "followupTask":
      return `Message ${them}`;
    case "closeAgent":
      return `Close ${them}`;
    case "resumeAgent":
      return `Resume ${them}`;
    case "interruptAgent":
      return `Interrupt ${them}`;
    case "listAgents":
      return "List subagents";
    default:
      return `Subagents: ${String(item.tool)}`;
  }
}

/** Where each subagent a collab call names stands, with its last message (what a wait returns). */
function collabStates(item: ItemOf<"collabAgentToolCall">): ToolCallContent[] {
  const lines = Object.entries(item.agentsStates).flatMap(([thread, state]) =>
    state ? [`${thread}: ${state.status}${state.message ? `\n${state.message}` : ""}`] : [],
  );
  return lines.length ? [text(lines.join("\n\n"))] : [];
}

/** A generated image as image content (never base64 in rawInput), and where Codex saved it. */
function generatedImage(item: ItemOf<"imageGeneration">): ToolCallContent[] {
  const out: ToolCallContent[] = [];
  const data = "result" in item ? item.result : "";
  if (data) out.push({ type: "content", content: { type: "image", data, mimeType: imageMimeType(data) } });
  if (item.savedPath) out.push(text(`Saved to ${item.savedPath}`));
  if (item.failure?.type === "usageLimitExceeded")
    out.push(text("Image generation failed: the usage limit is reached."));
  else if (item.failure) out.push(text(`Image generation failed (${String(item.failure.type)}).`));
  return out;
}

/** The image format from the first bytes of its base64 (Codex's results are PNG unless they say). */
function imageMimeType(base64: string): string {
  if (base64.startsWith("/9j/")) return "image/jpeg";
  if (base64.startsWith("UklGR")) return "image/webp";
  if (base64.startsWith("R0lGOD")) return "image/gif";
  return "image/png";
}

/** One block of an MCP tool result as ACP content (text, image, embedded text resource). */
function mcpContent(block: unknown): ToolCallContent[] {
  const b = objectFields(block);
  const resourceText = objectFields(b.resource).text;
  if (b.type === "text" && typeof b.text === "string") return [text(b.text)];
  if (b.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string")
    return [{ type: "content", content: { type: "image", data: b.data, mimeType: b.mimeType } }];
  if (b.type === "resource" && typeof resourceText === "string") return [text(resourceText)];
  return [];
}

/** Compile time: `item` is `never` once every kind has a case. Run time: a newer Codex's kind, reported and returned. */
function unknownKind(item: never, ctx: ItemContext): string {
  const kind: unknown = Reflect.get(Object(item), "type");
  const name = typeof kind === "string" ? kind : "(no type)";
  ctx.onUnknown?.(name);
  return name;
}
