// The modes feature: offers the session's modes (src/core/session/modes.ts) to the client, in the
// session/new, load and resume answers, and answers session/set_mode. A new session starts from
// the user's Codex configuration for its cwd (config.toml, read through Codex's config/read): the
// preset it matches, or the Custom mode when none does; with no approval or sandbox setting there,
// the default mode (auto).
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { SessionFeature } from "../../core/feature-api.js";
import { CUSTOM_MODE, DEFAULT_MODE, customPolicy, modePreset, modeState, presetOfSettings, presetSettings, setMode } from "../../core/session/modes.js";
import { UserConfigReader } from "./user-config.js";

/** Puts `modes` in the session/new (load, resume) response and answers session/set_mode. */
export function modesFeature(configs: UserConfigReader = new UserConfigReader()): SessionFeature {
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
      const config = await configs.read(opening.settings.cwd, services);
      if (config?.sandbox_workspace_write) {
        const w = config.sandbox_workspace_write;
        opening.settings.workspaceWrite = { writableRoots: w.writable_roots, networkAccess: w.network_access, excludeTmpdirEnvVar: w.exclude_tmpdir_env_var, excludeSlashTmp: w.exclude_slash_tmp };
      }
      if (config && (config.approval_policy != null || config.sandbox_mode != null || config.approvals_reviewer === "auto_review")) {
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
    attach(session) {
      // The mode the thread opened in: a preset, or Custom (the user's config.toml, or another
      // client's settings on a loaded thread) that keeps what Codex runs with.
      const preset = presetOfSettings(session.settings);
      if (preset) session.update({ mode: preset.id });
      else if (customPolicy(session.settings)) session.update({ mode: CUSTOM_MODE });
      else {
        // Nothing Codex reported describes it (an older Codex): the default mode, from the next turn.
        const fallback = modePreset(DEFAULT_MODE)!;
        session.update({ mode: fallback.id, settings: presetSettings(fallback, session.roots, session.settings.workspaceWrite) });
      }
      return { modes: modeState(session) };
    },
    describe(session) {
      return { modes: modeState(session) };
    },
  };
}
