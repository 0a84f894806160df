// A tool call that a PreToolUse hook blocked has no item: Codex tells the model and the user would
// see nothing. Such a call is shown as one failed tool call carrying the hook's words: the adapter's
// own guard (apply_patch run through the shell while the editor owns the edits), or a user's hook.
import type { v2 } from "../codex/index.js";
import { textContent, type SessionUpdate } from "./view.js";

export function blockedToolCall(run: v2.HookRunSummary): SessionUpdate[] {
  if (run.status !== "blocked" || run.eventName !== "preToolUse") return [];
  const said = run.entries
    .filter((e) => e.kind === "feedback" || e.kind === "error" || e.kind === "stop")
    .map((e) => e.text);
  const ours = said.some((t) => t.startsWith("codex-cli-acp:"));
  return [
    {
      sessionUpdate: "tool_call",
      toolCallId: `hook-${run.id}`,
      title: ours
        ? "apply_patch through the shell (refused: edits go through the editor)"
        : "Tool call blocked by a hook",
      kind: ours ? "edit" : "other",
      status: "failed",
      content: said.length > 0 ? [textContent(said.join("\n"))] : [],
      rawOutput: { hook: run.sourcePath, status: run.status },
    },
  ];
}
