// The model's instructions about the embedded file tools, on their own: this is text the model
// reads (what the tools are for, what the editor's buffers mean, why a refusal is the user's), and
// it changes with its wording, not with how feature.ts wires the tools into a session.
import { FILE_TOOLS_SERVER, PATCH_TOOL, READ_TOOL, WRITE_TOOL } from "./contract/index.js";

/** The model's instructions about the tools (and what the editor's buffers mean). */
export function fileToolsInstructions(withPatch: boolean): string {
  const ns = `\`${FILE_TOOLS_SERVER}\``;
  const edit = withPatch
    ? `\`${PATCH_TOOL}\` to edit files (the usual patch format: \`*** Begin Patch\`, \`*** Update File:\` / \`*** Add File:\` / \`*** Delete File:\`, \`@@\` hunks, \`*** End Patch\`; paths relative to the working directory or absolute), and \`${WRITE_TOOL}\` (absolute path and the complete content) to write a whole file.`
    : `\`${WRITE_TOOL}\` (absolute path and the complete new content) to create or replace a file.`;
  return [
    `An editor is attached to this session. Read and edit workspace files with the ${ns} MCP tools: \`${READ_TOOL}\` (absolute path; optional 1-based line and limit) instead of shell commands such as cat, sed or head, and ${edit}`,
    "These tools work on the editor's buffers, including changes the user has not saved, and the user reviews and can undo every edit in the editor. " +
      `When \`${READ_TOOL}\` reports \`unsaved_changes: true\`, the editor's text differs from the file on disk: shell commands (builds, tests, grep) still see the disk version until the user saves.`,
    ...(withPatch
      ? [
          `Do not run apply_patch as a shell command: in this session it is refused (it would change the disk behind the editor); use \`${PATCH_TOOL}\` of ${ns}.`,
        ]
      : []),
    "When a tool answers with an error (for example permission denied), the user's editor refused: do not work around it with shell commands.",
  ].join("\n");
}
