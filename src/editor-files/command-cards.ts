// What a session's shell commands change, on their cards (issue 48): the hooks Codex runs around a
// command report to the session's hook address (command-changes/hooks.ts); the files the command
// names are looked at before it runs and after it ends, and the differences become diffs on the
// command's last update (the session waits for them: core/session/tool-call-endings.ts). A file
// the editor held with unsaved changes is said on the card, and to the model through the
// PostToolUse hook's answer.
import { z } from "zod";
import type { HookHandler } from "./endpoint/index.js";
import { CommandChanges, FolderWatch, modelNote, reportContent } from "./command-changes/index.js";
import type { AcpSession } from "../core/index.js";
import type { Logger } from "../log/index.js";
import type { Item } from "../bridge/index.js";
import { FILE_TOOLS_SERVER } from "./contract/index.js";

/** How long a command waits for us to look at the files it names (its hook's answer). */
const BEFORE_WAIT_MS = 3000;

/** The part of Codex's hook input we read (the rest is Codex's to change). */
const HookInput = z.object({
  hook_event_name: z.enum(["PreToolUse", "PostToolUse"]),
  tool_name: z.string(),
  tool_use_id: z.string().min(1),
  cwd: z.string().optional(),
  tool_input: z
    .object({ command: z.union([z.string(), z.array(z.string())]).optional(), workdir: z.string().optional() })
    .passthrough()
    .optional(),
});

/** Waits for `looked`, at most BEFORE_WAIT_MS: the command waits on us, and must not wait long. */
async function withinBeforeWait(looked: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, BEFORE_WAIT_MS)));
  await Promise.race([looked, late]);
  clearTimeout(timer);
}

export type CommandCards = { hooks: HookHandler; stop: () => void };

/** Starts tracking `session`'s commands; `editorText` reads a file's text in the editor (when the client serves reads). */
export function commandCards(
  session: AcpSession,
  log: Logger,
  editorText?: (path: string) => Promise<string | undefined>,
): CommandCards {
  // Started with the session's first turn, in the background (the walk is done while the model
  // thinks, and the first command finds it ready), not before: a session never prompted watches nothing.
  const watch = new FolderWatch(() => session.roots);
  const offTurn = session.on("beforeTurn", () => {
    void watch.start();
    // The last turn's commands have ended and their hooks have run: nothing of them is asked again.
    changes.clear();
    return Promise.resolve();
  });
  const offSizes = session.on("sizes", () => ({ ...changes.sizes, watchedFolders: watch.folderCount }));
  const changes = new CommandChanges({ roots: () => session.roots, watch, ...(editorText ? { editorText } : {}) });
  const tracked = (item: Item): boolean =>
    item.type === "commandExecution" || (item.type === "mcpToolCall" && item.server !== FILE_TOOLS_SERVER);
  const off = session.on("toolCallEnding", (item) =>
    tracked(item) ? changes.after(item.id)?.then(reportContent) : undefined,
  );
  const hooks: HookHandler = async (raw) => {
    const parsed = HookInput.safeParse(raw);
    if (!parsed.success) return "";
    const input = parsed.data;
    const command = input.tool_name === "Bash";
    if (!command && !input.tool_name.startsWith("mcp__")) return "";
    if (input.hook_event_name === "PreToolUse" && !command) {
      // Another server's tool names no files we can read it for: the watch alone sees what it writes.
      await withinBeforeWait(changes.before(input.tool_use_id, "", input.cwd ?? session.cwd));
      return "";
    }
    if (input.hook_event_name === "PreToolUse") {
      const command = input.tool_input?.command;
      const line = Array.isArray(command) ? command.join(" ") : command;
      const cwd = input.tool_input?.workdir ?? input.cwd ?? session.cwd;
      if (!line || !cwd) return "";
      await withinBeforeWait(changes.before(input.tool_use_id, line, cwd));
      return "";
    }
    const report = await changes.after(input.tool_use_id);
    const note = report && modelNote(report);
    if (report)
      log.debug(
        { sessionId: session.id, changed: report.changes.length, unsaved: report.unsaved.length },
        "a command's changes",
      );
    return note
      ? JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: note } })
      : "";
  };
  return {
    hooks,
    stop: () => {
      off();
      offTurn();
      offSizes();
      changes.clear();
      watch.close();
    },
  };
}
