// The session's modes: what Codex may do without asking. Each mode is a Codex approval policy
// plus a sandbox preset; `session.mode` also drives the embedded file tools' write rule. A change
// applies from the next turn (turn/start carries the policy and the sandbox). Part of the core:
// the modes feature offers them to the client, and other features (config options, commands,
// directories) read and switch them here, never through that feature.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { v2 } from "../../codex/index.js";
import type { SessionMode } from "../../editor-files/access/index.js";
import { invalidParams, shown } from "../errors.js";
import type { AgentServices } from "../feature-api.js";
import type { AcpSession, ModeId, ThreadSettings } from "./session.js";
import { sandboxModeOf, type OpenedPolicy, type WorkspaceWrite } from "./thread-config.js";

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
    description:
      "Codex reads files and answers; it asks before running commands that change anything and cannot edit files.",
    approvalPolicy: "on-request",
    sandbox: "read-only",
  },
  {
    id: "review-edits",
    name: "Review Edits",
    description:
      "Codex reads freely; every file change waits for your yes, shown as a diff first, and so does any command that changes anything.",
    approvalPolicy: "on-request",
    sandbox: "read-only",
  },
  {
    id: "auto",
    name: "Auto",
    description:
      "Codex edits files and runs commands in the workspace; it asks before going outside it or using the network.",
    approvalPolicy: "on-request",
    sandbox: "workspace-write",
  },
  {
    id: "auto-review",
    name: "Auto-review",
    description:
      "Like Auto, but Codex's own reviewer decides on going outside the workspace or using the network, instead of asking you.",
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

/** The mode of a session whose thread opened with approvals and a sandbox no preset describes (the user's config.toml). */
export const CUSTOM_MODE = "custom" satisfies ModeId;
const CUSTOM_MODE_NAME = "Custom (config.toml)";

export function modePreset(id: string): ModePreset | undefined {
  return MODES.find((m) => m.id === id);
}

/** The preset the settings match, if any. */
export function presetOfSettings(
  settings: Pick<ThreadSettings, "approvalPolicy" | "sandbox" | "approvalsReviewer">,
): ModePreset | undefined {
  const reviewer = settings.approvalsReviewer === "auto_review" ? "auto_review" : undefined;
  return MODES.find(
    (m) =>
      m.approvalPolicy === settings.approvalPolicy &&
      m.sandbox === settings.sandbox &&
      m.approvalsReviewer === reviewer,
  );
}

/** The policy the thread opened with, when no preset describes it: the session's Custom mode. */
export function customPolicy(settings: ThreadSettings): OpenedPolicy | undefined {
  const opened = settings.openedWith;
  if (!opened) return undefined;
  const described = presetOfSettings({
    approvalPolicy: opened.approvalPolicy,
    sandbox: sandboxModeOf(opened.sandboxPolicy),
    approvalsReviewer: opened.approvalsReviewer,
  });
  return described ? undefined : opened;
}

/**
 * What a preset sets in the session's settings (sent with the next turn). A workspace-write preset
 * keeps the user's own workspace-write settings (extra writable roots, network access); a
 * read-only or full-access one says what it means instead.
 */
export function presetSettings(
  preset: ModePreset,
  roots: readonly string[],
  workspaceWrite?: WorkspaceWrite,
): Partial<ThreadSettings> {
  return {
    approvalPolicy: preset.approvalPolicy,
    sandbox: preset.sandbox,
    sandboxPolicy: sandboxPolicyOf(preset.sandbox, roots, workspaceWrite),
    // "user" explicitly: leaving auto-review must reach Codex too.
    approvalsReviewer: preset.approvalsReviewer ?? "user",
  };
}

/** What the Custom mode sets: the policy the thread opened with, its writable roots joined by the session's. */
function customSettings(policy: OpenedPolicy, roots: readonly string[]): Partial<ThreadSettings> {
  const sandbox = sandboxModeOf(policy.sandboxPolicy);
  const sandboxPolicy: v2.SandboxPolicy =
    policy.sandboxPolicy.type === "workspaceWrite"
      ? { ...policy.sandboxPolicy, writableRoots: union(roots, policy.sandboxPolicy.writableRoots) }
      : policy.sandboxPolicy;
  return {
    approvalPolicy: policy.approvalPolicy,
    ...(sandbox ? { sandbox } : {}),
    sandboxPolicy,
    approvalsReviewer: policy.approvalsReviewer,
  };
}

/** turn/start's sandboxPolicy for a sandbox mode, with the user's workspace-write settings where it writes. */
export function sandboxPolicyOf(
  sandbox: ModePreset["sandbox"],
  roots: readonly string[],
  workspaceWrite?: WorkspaceWrite,
): v2.SandboxPolicy {
  switch (sandbox) {
    case "read-only":
      return { type: "readOnly", networkAccess: false };
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    default:
      return {
        type: "workspaceWrite",
        writableRoots: union(roots, workspaceWrite?.writableRoots ?? []),
        networkAccess: workspaceWrite?.networkAccess ?? false,
        excludeTmpdirEnvVar: workspaceWrite?.excludeTmpdirEnvVar ?? false,
        excludeSlashTmp: workspaceWrite?.excludeSlashTmp ?? false,
      };
  }
}

const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])];

/** A one-line account of a policy, for the Custom mode's description and /status. */
export function describePolicy(policy: OpenedPolicy): string {
  const approvals = typeof policy.approvalPolicy === "string" ? policy.approvalPolicy : "granular";
  const p = policy.sandboxPolicy;
  const sandbox =
    p.type === "workspaceWrite"
      ? `workspace-write, network ${p.networkAccess ? "on" : "off"}${p.writableRoots.length ? `, ${p.writableRoots.length} more writable root${p.writableRoots.length > 1 ? "s" : ""}` : ""}`
      : p.type === "readOnly"
        ? `read-only${p.networkAccess ? ", network on" : ""}`
        : p.type === "dangerFullAccess"
          ? "danger-full-access"
          : "external sandbox";
  const reviewer = policy.approvalsReviewer === "user" ? "" : `, reviewer ${policy.approvalsReviewer}`;
  return `Your Codex configuration: approvals ${approvals}, sandbox ${sandbox}${reviewer}.`;
}

/** The modes a session offers: the presets, and Custom when its thread opened with a policy none describes. */
export function availableModes(session: AcpSession): acp.SessionMode[] {
  const presets = MODES.map((m) => ({ id: m.id, name: m.name, description: m.description }));
  const custom = customPolicy(session.settings);
  return custom
    ? [...presets, { id: CUSTOM_MODE, name: CUSTOM_MODE_NAME, description: describePolicy(custom) }]
    : presets;
}

/** The display name of the session's mode. */
export function modeName(session: AcpSession): string {
  return session.mode === CUSTOM_MODE ? CUSTOM_MODE_NAME : (modePreset(session.mode)?.name ?? session.mode);
}

/**
 * The rule the embedded file tools apply to writes in the session's mode; the Custom mode's
 * follows its sandbox (read-only: none; full access: anywhere; workspace-write: the roots, ask elsewhere).
 */
export function writeRuleOf(session: AcpSession): SessionMode {
  if (session.mode !== CUSTOM_MODE) return session.mode;
  const sandbox = session.settings.sandbox;
  return sandbox === "read-only" ? "read-only" : sandbox === "danger-full-access" ? "full-access" : "auto";
}

export function modeState(session: AcpSession): acp.SessionModeState {
  return { currentModeId: session.mode, availableModes: availableModes(session) };
}

/**
 * Switches the session's mode (session/set_mode, or the `mode` config option): the file-tool rule
 * now, Codex's policy and sandbox from the next turn. The client hears `current_mode_update`;
 * other features hear the session's change event.
 */
export async function setMode(session: AcpSession, modeId: string, services: AgentServices): Promise<void> {
  const preset = modePreset(modeId);
  const custom = modeId === CUSTOM_MODE ? customPolicy(session.settings) : undefined;
  if (!preset && !custom) {
    throw invalidParams(
      { modeId },
      `Unknown mode "${shown(modeId)}"; available: ${availableModes(session)
        .map((m) => m.id)
        .join(", ")}`,
    );
  }
  const id: ModeId = preset?.id ?? CUSTOM_MODE;
  // The client hears the new mode first, then what follows from it (config options).
  const told =
    session.mode !== id ? session.send({ sessionUpdate: "current_mode_update", currentModeId: id }) : undefined;
  session.update({
    mode: id,
    settings: preset
      ? presetSettings(preset, session.roots, session.settings.workspaceWrite)
      : customSettings(custom!, session.roots),
  });
  services.log.info({ sessionId: session.id, mode: id }, "mode set");
  await told;
}
