// The modes feature: offers the session's modes (src/core/session/modes.ts) to the client, in the
// session/new, load and resume answers, and answers session/set_mode. A new session starts from
// the user's Codex configuration for its cwd (config.toml, read through Codex's config/read:
// src/codex/user-config.ts): the preset it matches, or the Custom mode when none does; with no
// approval or sandbox setting there, the default mode (auto). A loaded thread comes back in the mode its settings describe; where two
// modes share Codex's settings (Read Only and Review Edits), in the one the user left it in
// (mode-memory.ts).
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { codexHomeOf } from "../../codex/index.js";
import type { AgentServices, SessionFeature } from "../../core/index.js";
import {
  CUSTOM_MODE,
  DEFAULT_MODE,
  customPolicy,
  modePreset,
  modeState,
  presetOfSettings,
  presetSettings,
  setMode,
  type ModePreset,
} from "../../core/index.js";
import type { ThreadSettings } from "../../core/index.js";
import { ModeMemory } from "./mode-memory.js";

/**
 * A mode a stored thread's settings may not bring back: one whose Codex settings an earlier mode
 * has too (Review Edits: Read Only's), or a workspace-write one (codex 0.169 resumes a thread in a
 * folder it does not trust with the configuration's sandbox, read-only there, not the one it ran with).
 */
const needsMemory = (preset: ModePreset): boolean =>
  presetOfSettings(preset) !== preset || preset.sandbox === "workspace-write";

/**
 * The mode a stored thread comes back in: the one Codex's resumed settings describe, unless the
 * user left it in a mode those settings cannot show: one that shares them, or a workspace-write
 * one Codex resumed read-only (the same policy and reviewer, the sandbox narrowed; Auto-review's
 * read-only counterpart is no mode at all). Any other difference is another client's doing, and
 * stands; settings no mode describes are the Custom mode (undefined here).
 */
function restoredMode(
  resumed: Pick<ThreadSettings, "approvalPolicy" | "sandbox" | "approvalsReviewer">,
  remembered: ModePreset | undefined,
): ModePreset | undefined {
  const described = presetOfSettings(resumed);
  if (!remembered || remembered === described) return described;
  if (described && presetOfSettings(remembered) === described) return remembered;
  const narrowed =
    remembered.sandbox === "workspace-write" &&
    resumed.sandbox === "read-only" &&
    presetOfSettings({ ...resumed, sandbox: "workspace-write" }) === remembered;
  return narrowed ? remembered : described;
}

/** Puts `modes` in the session/new (load, resume) response and answers session/set_mode. */
export function modesFeature(memoryDir = path.join(codexHomeOf(), "codex-cli-acp", "session-modes")): SessionFeature {
  let memory: ModeMemory | undefined;
  const memoryOf = (services: AgentServices): ModeMemory => (memory ??= new ModeMemory(memoryDir, services.log));
  return {
    name: "modes",
    install(app, agent) {
      app.onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
        await setMode(agent.sessionOf(params.sessionId), params.modeId, agent.services);
        return {};
      });
    },
    async prepare(opening, services) {
      // A fork runs with the settings it was given; a loaded thread keeps those it last ran with.
      if (opening.kind !== "new" || opening.forkOf) return;
      const config = (await services.host.userConfig.read(opening.settings.cwd))?.config;
      if (config?.sandbox_workspace_write) {
        const w = config.sandbox_workspace_write;
        opening.settings.workspaceWrite = {
          writableRoots: w.writable_roots,
          networkAccess: w.network_access,
          excludeTmpdirEnvVar: w.exclude_tmpdir_env_var,
          excludeSlashTmp: w.exclude_slash_tmp,
        };
      }
      if (
        config &&
        (config.approval_policy != null || config.sandbox_mode != null || config.approvals_reviewer === "auto_review")
      ) {
        // The user chose: Codex applies their configuration (with its profile, project trust and
        // requirements) and answers thread/start with what the thread runs with.
        delete opening.settings.approvalPolicy;
        delete opening.settings.sandbox;
        delete opening.settings.approvalsReviewer;
        return;
      }
      const preset = modePreset(DEFAULT_MODE)!;
      opening.settings.approvalPolicy = preset.approvalPolicy;
      opening.settings.sandbox = preset.sandbox;
    },
    async attach(session, opening, services) {
      // The mode the thread opened in: a preset, or Custom (the user's config.toml, or another
      // client's settings on a loaded thread) that keeps what Codex runs with.
      // A thread Codex has a history of: loaded, resumed, or forked from one.
      const stored = opening.kind !== "new" || opening.forkOf !== undefined;
      const remembered = stored
        ? modePreset((await memoryOf(services).recall(opening.forkOf ?? session.id)) ?? "")
        : undefined;
      const mode = restoredMode(session.settings, remembered);
      if (mode) {
        // Restored over what Codex resumed with: it runs as such from the next turn.
        session.update(
          presetOfSettings(mode) === presetOfSettings(session.settings)
            ? { mode: mode.id }
            : { mode: mode.id, settings: presetSettings(mode, session.roots, session.settings.workspaceWrite) },
        );
      } else if (customPolicy(session.settings)) session.update({ mode: CUSTOM_MODE });
      else {
        // Nothing Codex reported describes it (an older Codex): the default mode, from the next turn.
        const fallback = modePreset(DEFAULT_MODE)!;
        session.update({
          mode: fallback.id,
          settings: presetSettings(fallback, session.roots, session.settings.workspaceWrite),
        });
      }
      // The memory follows the thread's mode once Codex keeps the thread (a new one from its first
      // turn: one never prompted leaves nothing to load), holding only a mode its settings may not
      // bring back.
      let kept = opening.forkOf === undefined ? remembered?.id : undefined;
      let keptByCodex = stored;
      const follow = (): void => {
        if (!keptByCodex) return;
        const now = modePreset(session.mode);
        const wanted = now && needsMemory(now) ? now.id : undefined;
        if (wanted === kept) return;
        kept = wanted;
        void memoryOf(services).remember(session.id, wanted);
      };
      follow();
      session.onChange((change) => {
        if (change.type === "mode") follow();
      });
      session.on("beforeTurn", async () => {
        keptByCodex = true;
        follow();
      });
      return { modes: modeState(session) };
    },
    describe(session) {
      return { modes: modeState(session) };
    },
    sessionDeleted(sessionId, services) {
      return memoryOf(services).remember(sessionId, undefined);
    },
  };
}
