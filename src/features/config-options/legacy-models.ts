// The legacy model selector, for clients that read no config options (acpx, older editors): the
// session's answer carries `models` (one entry per model and reasoning effort) and the unstable
// `session/set_model` picks one. Both peer adapters answer it on every session; here every client
// gets it but one that declares config option capabilities (`session.configOptions`: it reads
// the options). Ids follow Zed's adapter, "<model>/<effort>"; the official adapter's
// "<model>[<effort>]" and a bare model are taken as well. The config options stay the one truth:
// this is another view of the same settings, and a switch made here is told to their clients.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { invalidParams, shown } from "../../core/index.js";
import type { AgentHandle, SessionModelState } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";
import { effortsOf, modelEntry, type ConfigState, type Model } from "./catalog.js";
import { configOptions, modelSettings } from "./options.js";

export const SET_MODEL_METHOD = "session/set_model";
const setModelParamsSchema = z.object({ sessionId: z.string(), modelId: z.string() });

function modelId(model: string, effort: string | undefined): string {
  return effort === undefined ? model : `${model}/${effort}`;
}

type ModelInfo = SessionModelState["availableModels"][number];

function entriesOf(model: Model): ModelInfo[] {
  const name = model.displayName || model.model;
  if (model.supportedReasoningEfforts.length === 0)
    return [{ modelId: model.model, name, ...(model.description ? { description: model.description } : {}) }];
  return model.supportedReasoningEfforts.map((e) => {
    const description = [model.description, e.description].filter(Boolean).join(" ");
    return {
      modelId: modelId(model.model, e.reasoningEffort),
      name: `${name} (${e.reasoningEffort})`,
      ...(description ? { description } : {}),
    };
  });
}

/** The session's models as the legacy selector shows them; none while the session has no model. */
export function modelState(session: AcpSession, state: ConfigState): SessionModelState | undefined {
  const current = session.settings.model;
  if (!current) return undefined;
  const model = modelEntry(state, current);
  const availableModels = state.models.flatMap(entriesOf);
  const effort = session.settings.effort;
  const currentModelId = modelId(model?.model ?? current, effortsOf(model).length > 0 || !model ? effort : undefined);
  // A model (or effort) outside the catalog, as the thread runs it and as the session opened: offered too, so it stays a choice.
  const own = state.own?.model;
  const ownModelId = own && !modelEntry(state, own) ? modelId(own, state.own?.effort) : undefined;
  for (const id of [ownModelId, currentModelId])
    if (id !== undefined && !availableModels.some((m) => m.modelId === id))
      availableModels.unshift({ modelId: id, name: id });
  return { currentModelId, availableModels };
}

/** What a legacy id stands for: one offered, the official adapter's "<model>[<effort>]", or a bare model. */
function parseModelId(
  id: string,
  session: AcpSession,
  state: ConfigState,
): { model: Model | undefined; slug: string; effort?: string } | undefined {
  for (const model of state.models) {
    if (id === model.model && effortsOf(model).length === 0) return { model, slug: model.model };
    for (const effort of effortsOf(model))
      if (id === modelId(model.model, effort) || id === `${model.model}[${effort}]`)
        return { model, slug: model.model, effort };
  }
  const bare = modelEntry(state, id);
  if (bare) return { model: bare, slug: bare.model };
  // The thread's own model outside the catalog (as modelState offers it), with or without its effort.
  const current = session.settings.model;
  if (current && !modelEntry(state, current) && (id === current || id === modelId(current, session.settings.effort)))
    return { model: undefined, slug: current };
  // The session's own model outside the catalog (a switch away from it is not the end of it), with its own effort.
  const own = state.own?.model;
  if (own && !modelEntry(state, own) && (id === own || id === modelId(own, state.own?.effort)))
    return { model: undefined, slug: own, ...(state.own?.effort ? { effort: state.own.effort } : {}) };
  return undefined;
}

/** session/set_model: the model (and effort) from the next turn; the config options' clients hear it. */
export function installSetModel(
  app: acp.AgentApp,
  agent: AgentHandle,
  stateOf: (session: AcpSession) => ConfigState,
): void {
  app.onRequest(SET_MODEL_METHOD, setModelParamsSchema, async ({ params }) => {
    const session = agent.sessionOf(params.sessionId);
    const state = stateOf(session);
    const choice = parseModelId(params.modelId, session, state);
    if (!choice) {
      const available = modelState(session, state)?.availableModels.map((m) => m.modelId) ?? [];
      throw invalidParams(
        { modelId: params.modelId, available },
        `Unknown model "${shown(params.modelId)}"; available: ${available.join(", ") || "(none)"}`,
      );
    }
    session.update({ settings: modelSettings(session, choice.model, choice.slug, choice.effort) });
    agent.services.log.info({ sessionId: session.id, modelId: params.modelId }, "model set (session/set_model)");
    await session
      .send({ sessionUpdate: "config_option_update", configOptions: configOptions(session, state) })
      .catch(() => undefined);
    return {};
  });
}
