// The session's modes: what Codex may do without asking. Each mode is a Codex approval policy
// plus a sandbox preset; `session.mode` also drives the embedded file tools' write rule. A change
// applies from the next turn (turn/start carries the policy and the sandbox). Part of the core:
// the modes feature offers them to the client, and other features (config options, commands,
// directories) read and switch them here, never through that feature.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { v2 } from "../../codex/index.js";
import type { SessionMode } from "../../editor-files/access/index.js";
import { invalidParams } from "../errors.js";
import type { AgentServices } from "../feature-api.js";
import type { AcpSession, ThreadSettings } from "./session.js";

export type ModePreset = {
  id: SessionMode;
  name: string;
  description: string;
  approvalPolicy: "on-request" | "never";
  sandbox: "read-only" | "workspace-write" | "danger-full-access";
  /** Who answers Codex's approval requests: the user (unset) or Codex's auto-reviewer. */
  approvalsReviewer?: "auto_review";
};

export const MODES: readonly ModePreset[] = [
  {
    id: "read-only",
    name: "Read Only",
    description: "Codex reads files and answers; it asks before running commands that change anything and cannot edit files.",
    approvalPolicy: "on-request",
    sandbox: "read-only",
  },
  {
    id: "auto",
    name: "Auto",
    description: "Codex edits files and runs commands in the workspace; it asks before going outside it or using the network.",
    approvalPolicy: "on-request",
    sandbox: "workspace-write",
  },
  {
    id: "auto-review",
    name: "Auto-review",
    description: "Like Auto, but Codex's own reviewer decides on going outside the workspace or using the network, instead of asking you.",
    approvalPolicy: "on-request",
    sandbox: "workspace-write",
    approvalsReviewer: "auto_review",
  },
  {
    id: "full-access",
    name: "Full Access",
    description: "Codex edits files, runs commands and uses the network without asking. Use with care.",
    approvalPolicy: "never",
    sandbox: "danger-full-access",
  },
];

export const DEFAULT_MODE: SessionMode = "auto";

export function modePreset(id: string): ModePreset | undefined {
  return MODES.find((m) => m.id === id);
}

/** The preset the settings match, if any. */
export function presetOfSettings(settings: ThreadSettings): ModePreset | undefined {
  const reviewer = settings.approvalsReviewer === "auto_review" ? "auto_review" : undefined;
  return MODES.find((m) => m.approvalPolicy === settings.approvalPolicy && m.sandbox === settings.sandbox && m.approvalsReviewer === reviewer);
}

/** What a preset sets in the session's settings (sent with the next turn). */
export function presetSettings(preset: ModePreset, roots: readonly string[]): Partial<ThreadSettings> {
  return {
    approvalPolicy: preset.approvalPolicy,
    sandbox: preset.sandbox,
    sandboxPolicy: sandboxPolicyOf(preset.sandbox, roots),
    // "user" explicitly: leaving auto-review must reach Codex too.
    approvalsReviewer: preset.approvalsReviewer ?? "user",
  };
}

/** turn/start's sandboxPolicy for a preset (the sandbox of thread/start, in its v2 shape). */
export function sandboxPolicyOf(sandbox: ModePreset["sandbox"], roots: readonly string[]): v2.SandboxPolicy {
  switch (sandbox) {
    case "read-only":
      return { type: "readOnly", networkAccess: false };
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    default:
      return { type: "workspaceWrite", writableRoots: [...roots], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false };
  }
}

export function modeState(session: AcpSession): acp.SessionModeState {
  return {
    currentModeId: session.mode,
    availableModes: MODES.map((m) => ({ id: m.id, name: m.name, description: m.description })),
  };
}

/**
 * Switches the session's mode (session/set_mode, or the `mode` config option): the file-tool rule
 * now, Codex's policy and sandbox from the next turn. The client hears `current_mode_update`;
 * other features hear the session's change event.
 */
export async function setMode(session: AcpSession, modeId: string, services: AgentServices): Promise<void> {
  const preset = modePreset(modeId);
  if (!preset) {
    throw invalidParams({ modeId }, `Unknown mode "${modeId}"; available: ${MODES.map((m) => m.id).join(", ")}`);
  }
  // The client hears the new mode first, then what follows from it (config options).
  const told = session.mode !== preset.id ? session.send({ sessionUpdate: "current_mode_update", currentModeId: preset.id }) : undefined;
  session.update({ mode: preset.id, settings: presetSettings(preset, session.roots) });
  services.log.info({ sessionId: session.id, mode: preset.id }, "mode set");
  await told;
}
