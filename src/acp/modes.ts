// Session modes: what Codex may do without asking. Each mode is a Codex approval policy plus
// a sandbox preset; `session.mode` also drives the embedded file tools' write rule.
// A change applies from the next turn (turn/start carries the policy and the sandbox).
import * as acp from "@agentclientprotocol/sdk";
import type { SessionMode } from "../fs/index.js";
import type { AgentServices, SessionFeature } from "./features.js";
import type { AcpSession, ThreadSettings } from "./session.js";

export type ModePreset = {
  id: SessionMode;
  name: string;
  description: string;
  approvalPolicy: "on-request" | "never";
  sandbox: "read-only" | "workspace-write" | "danger-full-access";
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

/** The mode whose preset the settings match (auto when they match none). */
export function modeOfSettings(settings: ThreadSettings): SessionMode {
  return MODES.find((m) => m.approvalPolicy === settings.approvalPolicy && m.sandbox === settings.sandbox)?.id ?? DEFAULT_MODE;
}

/** turn/start's sandboxPolicy for a preset (the sandbox of thread/start, in its v2 shape). */
export function sandboxPolicyOf(sandbox: ModePreset["sandbox"], roots: readonly string[]): Record<string, unknown> {
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

/** Listeners told when a session's mode changes (config options mirror the mode). */
export const modeListeners = new Set<(session: AcpSession) => void>();

/** Switches the session's mode: file-tool rule now, Codex policy and sandbox from the next turn. */
export function applyMode(session: AcpSession, modeId: string): ModePreset {
  const preset = modePreset(modeId);
  if (!preset) {
    throw acp.RequestError.invalidParams({ modeId }, `Unknown mode "${modeId}"; available: ${MODES.map((m) => m.id).join(", ")}`);
  }
  session.mode = preset.id;
  session.settings.approvalPolicy = preset.approvalPolicy;
  session.settings.sandbox = preset.sandbox;
  session.settings.sandboxPolicy = sandboxPolicyOf(preset.sandbox, session.roots);
  return preset;
}

/** session/set_mode. */
export async function setMode(session: AcpSession, modeId: string, services: AgentServices): Promise<void> {
  const before = session.mode;
  const preset = applyMode(session, modeId);
  services.log.info({ sessionId: session.id, mode: preset.id }, "mode set");
  if (before !== preset.id) {
    await session.send({ sessionUpdate: "current_mode_update", currentModeId: preset.id });
    for (const listener of modeListeners) listener(session);
  }
}

/** Puts `modes` in the session/new (load, resume) response; the thread starts in the session's mode. */
export const modesFeature: SessionFeature = {
  name: "modes",
  prepare(opening) {
    // New sessions start in `auto`; a loaded one keeps the settings it was given.
    if (opening.kind === "new") {
      const preset = modePreset(DEFAULT_MODE)!;
      opening.settings.approvalPolicy = preset.approvalPolicy;
      opening.settings.sandbox = preset.sandbox;
    }
  },
  attach(session, _opening, response) {
    session.mode = modeOfSettings(session.settings);
    response.modes = modeState(session);
  },
};
