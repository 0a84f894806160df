// The modes feature: offers the session's modes (src/core/session/modes.ts) to the client, in the
// session/new, load and resume answers, and answers session/set_mode.
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { SessionFeature } from "../core/feature-api.js";
import { DEFAULT_MODE, modePreset, modeState, presetOfSettings, presetSettings, setMode } from "../core/session/modes.js";

/** Puts `modes` in the session/new (load, resume) response and answers session/set_mode. */
export const modesFeature: SessionFeature = {
  name: "modes",
  install(app, agent) {
    app.onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      await setMode(agent.sessionOf(params.sessionId), params.modeId, agent.services);
      return {};
    });
  },
  prepare(opening) {
    // New sessions start in `auto`; a loaded one keeps the settings it was given.
    if (opening.kind === "new") {
      const preset = modePreset(DEFAULT_MODE)!;
      opening.settings.approvalPolicy = preset.approvalPolicy;
      opening.settings.sandbox = preset.sandbox;
    }
  },
  attach(session) {
    // A loaded thread comes back in the mode it last ran in; one that ran with settings no mode
    // describes (another client's, config.toml's) runs in the default mode from its next turn, so
    // what the client shows is what Codex does.
    const preset = presetOfSettings(session.settings) ?? modePreset(DEFAULT_MODE)!;
    session.update({ mode: preset.id, ...(presetOfSettings(session.settings) ? {} : { settings: presetSettings(preset, session.roots) }) });
    return { modes: modeState(session) };
  },
  describe(session) {
    return { modes: modeState(session) };
  },
};
