// Session config options: the mode (mirrors session modes), Codex's collaboration mode (plan or
// default, from `collaborationMode/list`), the model (Codex's `model/list`) and the reasoning
// effort (the efforts the chosen model supports). A choice applies from the next turn:
// turn/start carries them from the session's settings.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { CodexHost, ModeKind } from "../codex/index.js";
import { invalidParams } from "../core/errors.js";
import type { AgentServices, SessionFeature } from "../core/feature-api.js";
import { availableModes, setMode } from "../core/session/modes.js";
import type { AcpSession } from "../core/session/session.js";

const modelSchema = z.looseObject({
  id: z.string(),
  model: z.string(),
  displayName: z.string().optional(),
  description: z.string().optional(),
  hidden: z.boolean().optional(),
  isDefault: z.boolean().optional(),
  supportedReasoningEfforts: z.array(z.looseObject({ reasoningEffort: z.string(), description: z.string().optional() })).default([]),
  defaultReasoningEffort: z.string().nullish(),
  serviceTiers: z.array(z.looseObject({ id: z.string(), name: z.string(), description: z.string().optional() })).default([]),
  defaultServiceTier: z.string().nullish(),
});
type Model = z.infer<typeof modelSchema>;
const modelListSchema = z.looseObject({ data: z.array(modelSchema), nextCursor: z.string().nullish() });
const collaborationListSchema = z.looseObject({ data: z.array(z.looseObject({ name: z.string(), mode: z.string().nullable() })) });
const storedModelSchema = z.looseObject({ model: z.string().nullish(), reasoningEffort: z.string().nullish() });

/** What Codex lists (models, collaboration modes), fetched once per app-server child. */
type Catalogs<T> = WeakMap<CodexHost, { generation: number; list: Promise<T[]> }>;

function cachedList<T>(services: AgentServices, catalogs: Catalogs<T>, fetch: () => Promise<T[]>): Promise<T[]> {
  const cached = catalogs.get(services.host);
  if (cached && cached.generation === services.host.currentGeneration) return cached.list;
  const list = fetch();
  catalogs.set(services.host, { generation: services.host.currentGeneration, list });
  list.catch(() => catalogs.delete(services.host));
  return list;
}

export type CollaborationModeChoice = { mode: ModeKind; name: string };

/** Codex's collaboration modes (plan, default), in its order; none when this codex has none. */
function listCollaborationModes(services: AgentServices, catalogs: Catalogs<CollaborationModeChoice>): Promise<CollaborationModeChoice[]> {
  return cachedList(services, catalogs, async () => {
    const client = await services.host.client();
    const res = await client.call("collaborationMode/list", {}, collaborationListSchema);
    return res.data.flatMap((m) => (m.mode === "plan" || m.mode === "default" ? [{ mode: m.mode, name: m.name }] : []));
  });
}

async function listModels(services: AgentServices, catalogs: Catalogs<Model>): Promise<Model[]> {
  return cachedList(services, catalogs, async () => {
    const client = await services.host.client();
    const out: Model[] = [];
    let cursor: string | null | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await client.call("model/list", cursor ? { cursor } : {}, modelListSchema);
      out.push(...res.data.filter((m) => !m.hidden));
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    return out;
  });
}

type ConfigState = {
  models: Model[];
  collaborationModes: CollaborationModeChoice[];
  /** The client takes boolean options (`session.configOptions.boolean`): a model's one fast tier is a switch. */
  booleans?: boolean;
};

function modelEntry(state: ConfigState, slug: string | undefined): Model | undefined {
  return state.models.find((m) => m.model === slug || m.id === slug);
}

export function configOptions(session: AcpSession, state: ConfigState): acp.SessionConfigOption[] {
  const options: acp.SessionConfigOption[] = [
    {
      id: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: session.mode,
      options: availableModes(session).map((m) => ({ value: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })),
    },
  ];
  if (state.collaborationModes.length > 1 && session.settings.model) {
    options.push({
      id: "collaboration_mode",
      name: "Collaboration mode",
      // Not a category the spec names: custom ones take a leading underscore.
      category: "_collaboration_mode",
      type: "select",
      currentValue: session.settings.collaborationMode ?? "default",
      options: state.collaborationModes.map((m) => ({ value: m.mode, name: m.name, ...(m.mode === "plan" ? { description: "Codex explores, asks and proposes a plan; it changes nothing" } : {}) })),
    });
  }
  const current = session.settings.model;
  if (current) {
    const models = state.models.map((m) => ({ value: m.model, name: m.displayName || m.model, ...(m.description ? { description: m.description } : {}) }));
    if (!modelEntry(state, current)) models.unshift({ value: current, name: current });
    options.push({ id: "model", name: "Model", category: "model", type: "select", currentValue: current, options: models });
    const efforts = modelEntry(state, current)?.supportedReasoningEfforts ?? [];
    const effort = session.settings.effort;
    if (efforts.length > 0 && effort) {
      options.push({
        id: "reasoning_effort",
        name: "Reasoning effort",
        category: "thought_level",
        type: "select",
        currentValue: effort,
        options: efforts.map((e) => ({ value: e.reasoningEffort, name: effortName(e.reasoningEffort), ...(e.description ? { description: e.description } : {}) })),
      });
    }
    const tiers = modelEntry(state, current)?.serviceTiers ?? [];
    const [only] = tiers;
    if (only && tiers.length === 1 && state.booleans) {
      // One tier besides standard (Codex's "Fast"): a switch, on = that tier.
      options.push({
        id: "service_tier",
        name: only.name,
        category: "model",
        type: "boolean",
        currentValue: serviceTierOf(session, state) === only.id,
        ...(only.description ? { description: only.description } : {}),
      });
    } else if (tiers.length > 0) {
      options.push({
        id: "service_tier",
        name: "Speed",
        category: "model",
        type: "select",
        currentValue: serviceTierOf(session, state),
        options: [{ value: STANDARD_TIER, name: "Standard" }, ...tiers.map((t) => ({ value: t.id, name: t.name, ...(t.description ? { description: t.description } : {}) }))],
      });
    }
  }
  return options;
}

/** Codex's word for no particular service tier. */
const STANDARD_TIER = "default";

/** The tier in effect: the one chosen in this session, else the model's default. */
function serviceTierOf(session: AcpSession, state: ConfigState): string {
  return session.settings.serviceTier ?? modelEntry(state, session.settings.model)?.defaultServiceTier ?? STANDARD_TIER;
}

/** The tier a fast-mode switch stands for: the model's only tier when on, standard when off. */
function booleanTier(session: AcpSession, state: ConfigState, on: boolean): string {
  const tiers = modelEntry(state, session.settings.model)?.serviceTiers ?? [];
  const [only] = tiers;
  if (!only || tiers.length !== 1) {
    throw invalidParams({ value: on }, `The model ${session.settings.model ?? ""} has ${tiers.length === 0 ? "no speeds to switch" : "several speeds: choose one by id"}`);
  }
  return on ? only.id : STANDARD_TIER;
}

function effortName(effort: string): string {
  return effort === "xhigh" ? "Extra high" : effort.charAt(0).toUpperCase() + effort.slice(1);
}

/** session/set_config_option. */
async function setConfigOption(session: AcpSession, state: ConfigState, configId: string, value: unknown, services: AgentServices): Promise<acp.SessionConfigOption[]> {
  if (typeof value === "boolean" && configId === "service_tier") value = booleanTier(session, state, value);
  if (typeof value !== "string") throw invalidParams({ configId }, `The option "${configId}" takes a value id (a string)`);
  switch (configId) {
    case "mode":
      await setMode(session, value, services);
      break;
    case "collaboration_mode": {
      const choice = state.collaborationModes.find((m) => m.mode === value);
      if (!choice) throw invalidParams({ value }, `Unknown collaboration mode "${value}"; available: ${state.collaborationModes.map((m) => m.mode).join(", ")}`);
      session.update({ settings: { collaborationMode: choice.mode } });
      break;
    }
    case "model": {
      const model = modelEntry(state, value);
      if (!model && value !== session.settings.model) {
        throw invalidParams({ value }, `Unknown model "${value}"; available: ${state.models.map((m) => m.model).join(", ")}`);
      }
      const efforts = model?.supportedReasoningEfforts.map((e) => e.reasoningEffort) ?? [];
      const effort = session.settings.effort;
      const keepEffort = !model || (effort !== undefined && efforts.includes(effort));
      const tier = session.settings.serviceTier;
      const keepTier = tier === undefined || tier === STANDARD_TIER || model?.serviceTiers.some((t) => t.id === tier) === true;
      session.update({
        settings: { model: model?.model ?? value, ...(keepEffort ? {} : { effort: model.defaultReasoningEffort ?? efforts[0] }), ...(keepTier ? {} : { serviceTier: undefined }) },
      });
      break;
    }
    case "reasoning_effort": {
      const efforts = modelEntry(state, session.settings.model)?.supportedReasoningEfforts.map((e) => e.reasoningEffort) ?? [];
      if (!efforts.includes(value)) {
        throw invalidParams({ value }, `The model ${session.settings.model ?? ""} supports the reasoning efforts ${efforts.join(", ") || "(none)"}; not "${value}"`);
      }
      session.update({ settings: { effort: value } });
      break;
    }
    case "service_tier": {
      const tiers = [STANDARD_TIER, ...(modelEntry(state, session.settings.model)?.serviceTiers.map((t) => t.id) ?? [])];
      if (tiers.length === 1 || !tiers.includes(value)) {
        throw invalidParams({ value }, `The model ${session.settings.model ?? ""} offers the speeds ${tiers.join(", ")}; not "${value}"`);
      }
      session.update({ settings: { serviceTier: value } });
      break;
    }
    default:
      throw invalidParams({ configId }, `Unknown config option "${configId}"; available: ${configOptions(session, state).map((o) => o.id).join(", ")}`);
  }
  services.log.info({ sessionId: session.id, configId, value }, "config option set");
  return configOptions(session, state);
}

/** Puts `configOptions` in the session response, answers session/set_config_option, and tells the client when the mode changes elsewhere. */
export function configOptionsFeature(): SessionFeature {
  const catalogs: Catalogs<Model> = new WeakMap();
  const collaborationCatalogs: Catalogs<CollaborationModeChoice> = new WeakMap();
  const states = new WeakMap<AcpSession, ConfigState>();
  const stateOf = (session: AcpSession): ConfigState => states.get(session) ?? { models: [], collaborationModes: [] };
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
        const configOptions = await setConfigOption(session, stateOf(session), params.configId, params.value, agent.services);
        return { configOptions };
      });
    },
    async attach(session, opening, services) {
      const state: ConfigState = { models: [], collaborationModes: [], booleans: services.clientCapabilities().session?.configOptions?.boolean != null };
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
          const effort = session.settings.effort ?? thread.reasoningEffort ?? modelEntry(state, model)?.defaultReasoningEffort ?? undefined;
          session.update({ settings: { ...(model ? { model } : {}), ...(effort ? { effort } : {}) } });
        }
      } catch (err) {
        services.log.warn({ err: String(err), sessionId: session.id }, "could not read the model catalog; model options hidden");
      }
      // The mode or the collaboration mode changed elsewhere (session/set_mode, /plan): tell the client.
      let collaborationMode = session.settings.collaborationMode;
      session.onChange((change) => {
        if (change.type === "settings" && change.settings.collaborationMode === collaborationMode) return;
        collaborationMode = session.settings.collaborationMode;
        void session.send({ sessionUpdate: "config_option_update", configOptions: configOptions(session, state) }).catch(() => undefined);
      });
      return { configOptions: configOptions(session, state) };
    },
    describe(session) {
      const state = states.get(session);
      return state ? { configOptions: configOptions(session, state) } : {};
    },
    detach(session) {
      states.delete(session);
    },
  };
}
