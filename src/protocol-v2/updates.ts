// The session's v1 updates as ACP v2 updates, mapped once at the edge: the bridge and the features
// speak v1 and never know which protocol the client chose. v2 differs where it is keyed: tool
// calls are upserts (`tool_call` becomes `tool_call_update`), message chunks need a `messageId`,
// diffs are file states with a git patch, commands are agent-owned terminals (their output
// streamed once as base64 chunks, as v1 streams it), the plan is a `plan_update` of items, and the
// mode is no longer its own update (it is a config option).
import { randomUUID } from "node:crypto";
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { z } from "zod";
import { toV2Diff, type ChangeHint, type FileOperation } from "./diffs.js";
import { toV2Commands, toV2ConfigOptions } from "./shapes.js";

/** The plan's id: Codex keeps one plan per session, replaced whole by each update. */
const PLAN_ID = "plan";

/** What mapping one session's updates remembers: the tool calls' kinds (a delete, a move's source) and the files a patch lists, and in a replay the messages begun. */
export class SessionUpdateMapper {
  private readonly hints = new Map<string, ChangeHint>();
  /** The file changes each tool call of the turn showed: a permission about it carries them (v1 asks about the card the client already has). */
  private readonly changes = new Map<string, v2.ToolCallContent[]>();
  private replayedMessages: Set<string> | undefined;

  /** While replaying history (a resume with replay): each message first begins empty, so a client that had it starts over. */
  replaying(on: boolean): void {
    this.replayedMessages = on ? new Set() : undefined;
  }

  /** A turn ended: the tool calls it showed are final. */
  forgetToolCalls(): void {
    this.hints.clear();
    this.changes.clear();
  }

  /** The file changes the tool call showed last, if it showed any. */
  shownChanges(toolCallId: string): v2.ToolCallContent[] | undefined {
    return this.changes.get(toolCallId);
  }

  map(update: v1.SessionUpdate): v2.SessionUpdate[] {
    switch (update.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk":
        return this.chunk(update);
      case "tool_call":
      case "tool_call_update":
        return this.toolCall(update);
      case "plan":
        return [
          {
            sessionUpdate: "plan_update",
            plan: { type: "items", planId: PLAN_ID, entries: update.entries },
            ...meta(update._meta),
          },
        ];
      case "available_commands_update":
        return [
          {
            sessionUpdate: "available_commands_update",
            availableCommands: toV2Commands(update.availableCommands),
            ...meta(update._meta),
          },
        ];
      case "config_option_update":
        return [
          {
            sessionUpdate: "config_option_update",
            configOptions: toV2ConfigOptions(update.configOptions),
            ...meta(update._meta),
          },
        ];
      // The mode is a config option in v2, and the config options feature sends its update too.
      case "current_mode_update":
        return [];
      case "session_info_update":
      case "usage_update":
      case "notice":
      case "compaction_update":
      case "compaction_summary_chunk":
      case "plan_update":
      case "plan_removed":
      case "subagent_update":
      case "session_message":
      case "session_message_chunk":
        // The same shape in both versions.
        return [update as v2.SessionUpdate];
    }
  }

  private chunk(
    update: Extract<
      v1.SessionUpdate,
      { sessionUpdate: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk" }
    >,
  ): v2.SessionUpdate[] {
    // A chunk without an id is a one-off message of its own (a notice, a slash command's answer).
    const messageId = update.messageId ?? randomUUID();
    const chunk = {
      sessionUpdate: update.sessionUpdate,
      messageId,
      content: update.content,
      ...meta(update._meta),
    } as v2.SessionUpdate;
    if (!this.replayedMessages || this.replayedMessages.has(messageId)) return [chunk];
    this.replayedMessages.add(messageId);
    const start: v2.SessionUpdate =
      update.sessionUpdate === "user_message_chunk"
        ? { sessionUpdate: "user_message", messageId, content: [] }
        : update.sessionUpdate === "agent_message_chunk"
          ? { sessionUpdate: "agent_message", messageId, content: [] }
          : { sessionUpdate: "agent_thought", messageId, content: [] };
    return [start, chunk];
  }

  private toolCall(
    update: Extract<v1.SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>,
  ): v2.SessionUpdate[] {
    const hint = this.hintOf(update);
    const { sessionUpdate: _tag, content, _meta, ...fields } = update;
    const terminal = terminalMeta.safeParse(_meta ?? {});
    const terminalUpdates = terminal.success ? terminalUpdatesOf(terminal.data, update) : { before: [], after: [] };
    const rest = terminal.success ? withoutTerminalKeys(_meta) : _meta;
    const mappedContent = content ? content.map((c) => toV2Content(c, hint)) : content;
    if (mappedContent?.some((c) => c.type === "diff")) this.changes.set(update.toolCallId, mappedContent);
    const mapped: v2.SessionUpdate = {
      ...fields,
      sessionUpdate: "tool_call_update",
      ...(mappedContent !== undefined ? { content: mappedContent } : {}),
      ...meta(rest),
    };
    // An output chunk alone is the terminal's: no tool call change to send with it.
    const changesToolCall =
      Object.keys(fields).some((k) => k !== "toolCallId") || content !== undefined || rest !== undefined;
    // The terminal begins before the tool call that shows it, and ends after its last output.
    return changesToolCall
      ? [...terminalUpdates.before, mapped, ...terminalUpdates.after]
      : [...terminalUpdates.before, ...terminalUpdates.after];
  }

  private hintOf(update: {
    toolCallId: string;
    kind?: v1.ToolKind | null;
    locations?: v1.ToolCallLocation[] | null;
    rawInput?: unknown;
  }): ChangeHint {
    const known = this.hints.get(update.toolCallId) ?? {};
    const files = fileOperationsOf(update.rawInput) ?? known.files;
    const hint: ChangeHint = {
      kind: update.kind ?? known.kind,
      // A move's card lists the source first, then the target (src/bridge/file-changes.ts).
      from: update.locations && update.locations.length === 2 ? update.locations[0]!.path : known.from,
      ...(files ? { files } : {}),
    };
    this.hints.set(update.toolCallId, hint);
    return hint;
  }
}

/** The changes a patch's card lists in its rawInput (src/bridge/file-changes.ts): each file, what happens to it, a move's target. */
const listedChanges = z.object({
  changes: z
    .array(
      z.looseObject({ path: z.string(), kind: z.enum(["add", "delete", "update"]), movePath: z.string().optional() }),
    )
    .min(1),
});

/** Each listed file's operation, by the path its diff shows (a move's diff shows its target); undefined when the call lists none. */
function fileOperationsOf(rawInput: unknown): ReadonlyMap<string, FileOperation> | undefined {
  const listed = listedChanges.safeParse(rawInput);
  if (!listed.success) return undefined;
  const files = new Map<string, FileOperation>();
  for (const c of listed.data.changes) {
    if (c.kind === "update" && c.movePath !== undefined && c.movePath !== c.path)
      files.set(c.movePath, { operation: "move", oldPath: c.path });
    else
      files.set(
        c.path,
        c.kind === "add"
          ? { operation: "add" }
          : c.kind === "delete"
            ? { operation: "delete" }
            : { operation: "modify" },
      );
  }
  return files;
}

const meta = (value: Record<string, unknown> | null | undefined): { _meta?: Record<string, unknown> } =>
  value && Object.keys(value).length > 0 ? { _meta: value } : {};

function toV2Content(content: v1.ToolCallContent, hint: ChangeHint): v2.ToolCallContent {
  return content.type === "diff" ? toV2Diff(content, hint) : content;
}

/** The terminal conventions our bridge writes in a tool call's `_meta` (src/bridge/terminal.ts). */
const terminalMeta = z
  .looseObject({
    terminal_info: z.object({ terminal_id: z.string(), cwd: z.string().nullish() }).optional(),
    terminal_output: z.object({ terminal_id: z.string(), data: z.string() }).optional(),
    terminal_exit: z
      .object({ terminal_id: z.string(), exit_code: z.number().nullish(), signal: z.string().nullish() })
      .optional(),
  })
  .refine((m) => m.terminal_info !== undefined || m.terminal_output !== undefined || m.terminal_exit !== undefined);
type TerminalMeta = z.infer<typeof terminalMeta>;

const TERMINAL_KEYS: readonly string[] = ["terminal_info", "terminal_output", "terminal_exit"];
function withoutTerminalKeys(value: Record<string, unknown> | null | undefined): Record<string, unknown> | undefined {
  if (!value) return undefined;
  const rest = Object.fromEntries(Object.entries(value).filter(([k]) => !TERMINAL_KEYS.includes(k)));
  return Object.keys(rest).length > 0 ? rest : undefined;
}

const commandOf = z.looseObject({ command: z.union([z.string(), z.array(z.string()).transform((a) => a.join(" "))]) });

function terminalUpdatesOf(
  m: TerminalMeta,
  update: { rawInput?: unknown; title?: string | null },
): { before: v2.SessionUpdate[]; after: v2.SessionUpdate[] } {
  const before: v2.SessionUpdate[] = [];
  const after: v2.SessionUpdate[] = [];
  if (m.terminal_info) {
    const command = commandOf.safeParse(update.rawInput);
    before.push({
      sessionUpdate: "terminal_update",
      terminalId: m.terminal_info.terminal_id,
      ...(command.success ? { command: command.data.command } : update.title ? { command: update.title } : {}),
      ...(m.terminal_info.cwd ? { cwd: m.terminal_info.cwd } : {}),
    });
  }
  // Each output chunk once, as v1 streams it: nothing accumulated here.
  if (m.terminal_output)
    after.push({
      sessionUpdate: "terminal_output_chunk",
      terminalId: m.terminal_output.terminal_id,
      data: Buffer.from(m.terminal_output.data, "utf8").toString("base64"),
    });
  if (m.terminal_exit) {
    after.push({
      sessionUpdate: "terminal_update",
      terminalId: m.terminal_exit.terminal_id,
      exitStatus: { exitCode: m.terminal_exit.exit_code ?? null, signal: m.terminal_exit.signal ?? null },
    });
  }
  return { before, after };
}
