// The session's choices: config options (mode, collaboration mode, model, reasoning effort,
// speed; options.ts; and the Codex profile: profiles.ts, profile-choice.ts, kept per thread) and
// the legacy model selector for clients without them (legacy-models.ts), made from what Codex
// lists (catalog.ts), the user's Codex configuration and profiles, and the session's settings.
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { codexHomeOf } from "../../codex/index.js";
import type { SessionFeature } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";
import {
  listCollaborationModes,
  listModels,
  modelEntry,
  type Catalogs,
  type CollaborationModeChoice,
  type ConfigState,
  type Model,
} from "./catalog.js";
import { installSetModel, modelState } from "./legacy-models.js";
import { configOptions, setConfigOption } from "./options.js";
import { ProfileFeature } from "./profile-feature.js";

const storedModelSchema = z.looseObject({ model: z.string().nullish(), reasoningEffort: z.string().nullish() });

/** Puts `configOptions` and (for clients that may not read them) `models` in the session response, answers session/set_config_option and session/set_model, and tells the client when the mode changes elsewhere. */
export function configOptionsFeature(codexHome = codexHomeOf()): SessionFeature {
  const profiles = new ProfileFeature(path.join(codexHome, "codex-cli-acp", "session-profiles"), codexHome);
  const catalogs: Catalogs<Model> = new WeakMap();
  const collaborationCatalogs: Catalogs<CollaborationModeChoice> = new WeakMap();
  const states = new WeakMap<AcpSession, ConfigState>();
  const stateOf = (session: AcpSession): ConfigState => states.get(session) ?? { models: [], collaborationModes: [] };
  // A client that declares config option capabilities reads the options: the legacy copy would only weigh on its answer.
  const answer = (session: AcpSession, state: ConfigState) => ({
    configOptions: configOptions(session, state),
    ...(state.readsOptions ? {} : { models: modelState(session, state) }),
  });
  return {
    name: "config-options",
    initialized(services) {
      // The first session/new then finds both lists cached (they cost it 9-35 ms otherwise).
      void listModels(services, catalogs).catch(() => undefined);
      void listCollaborationModes(services, collaborationCatalogs).catch(() => undefined);
    },
    install(app, agent) {
      app.onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
        const session = agent.sessionOf(params.sessionId);
        if (params.configId === "profile" && typeof params.value === "string") {
          await profiles.choose(session, stateOf(session), params.value, agent.services);
          return { configOptions: configOptions(session, stateOf(session)) };
        }
        return {
          configOptions: await setConfigOption(
            session,
            stateOf(session),
            params.configId,
            params.value,
            agent.services,
          ),
        };
      });
      installSetModel(app, agent, stateOf);
    },
    prepare(opening, services) {
      return profiles.prepare(opening, services);
    },
    abandon(opening) {
      profiles.abandon(opening);
    },
    async attach(session, opening, services) {
      const declared = services.clientCapabilities().session?.configOptions;
      const state: ConfigState = {
        models: [],
        collaborationModes: [],
        booleans: declared?.boolean != null,
        readsOptions: declared != null,
      };
      states.set(session, state);
      try {
        [state.models, state.collaborationModes] = await Promise.all([
          listModels(services, catalogs),
          listCollaborationModes(services, collaborationCatalogs).catch((err: unknown) => {
            services.log.debug({ err: String(err) }, "no collaboration modes from codex");
            return [];
          }),
        ]);
        if (!session.settings.model || !session.settings.effort) {
          const thread = storedModelSchema.parse(await opening.storedThread!());
          const model = session.settings.model ?? thread.model ?? undefined;
          const effort =
            session.settings.effort ??
            thread.reasoningEffort ??
            modelEntry(state, model)?.defaultReasoningEffort ??
            undefined;
          session.update({ settings: { ...(model ? { model } : {}), ...(effort ? { effort } : {}) } });
        }
      } catch (err) {
        services.log.warn(
          { err: String(err), sessionId: session.id },
          "could not read the model catalog; model options hidden",
        );
      }
      const { model, effort, serviceTier } = session.settings;
      state.own = {
        ...(model ? { model } : {}),
        ...(effort ? { effort } : {}),
        ...(serviceTier ? { serviceTier } : {}),
      };
      await profiles.attach(session, opening, state, services);
      // The mode or the collaboration mode changed elsewhere (session/set_mode, /plan): tell the client.
      let collaborationMode = session.settings.collaborationMode;
      session.onChange((change) => {
        if (change.type === "settings" && change.settings.collaborationMode === collaborationMode) return;
        collaborationMode = session.settings.collaborationMode;
        void session
          .send({ sessionUpdate: "config_option_update", configOptions: configOptions(session, state) })
          .catch(() => undefined);
      });
      return answer(session, state);
    },
    describe(session) {
      const state = states.get(session);
      return state ? answer(session, state) : {};
    },
    detach(session) {
      states.delete(session);
    },
    sessionDeleted(sessionId, services) {
      return profiles.sessionDeleted(sessionId, services);
    },
  };
}
