// Session config options: the mode (mirrors session modes), Codex's collaboration mode (plan or
// default), the model, the reasoning effort (the efforts the chosen model supports), the speed
// (its service tiers) and prompt suggestions (on or off). A choice applies from the next turn:
// turn/start carries them from the session's settings.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { invalidParams, shown } from "../../core/index.js";
import type { AgentServices } from "../../core/index.js";
import { availableModes, setMode } from "../../core/index.js";
import type { AcpSession, ThreadSettings } from "../../core/index.js";
import { effortName, effortsOf, modelEntry, type ConfigState, type Model } from "./catalog.js";

export function configOptions(session: AcpSession, state: ConfigState): acp.SessionConfigOption[] {
  const options: acp.SessionConfigOption[] = [
    {
      id: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: session.mode,
      options: availableModes(session).map((m) => ({
        value: m.id,
        name: m.name,
        ...(m.description ? { description: m.description } : {}),
      })),
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
      options: state.collaborationModes.map((m) => ({
        value: m.mode,
        name: m.name,
        ...(m.mode === "plan" ? { description: "Codex explores, asks and proposes a plan; it changes nothing" } : {}),
      })),
    });
  }
  const current = session.settings.model;
  if (current) {
    const models = state.models.map((m) => ({
      value: m.model,
      name: m.displayName || m.model,
      ...(m.description ? { description: m.description } : {}),
    }));
    // Models outside the catalog, as the thread runs them and as the session opened: still choices.
    for (const slug of new Set(
      [state.own?.model, current].filter((m): m is string => m !== undefined && !modelEntry(state, m)),
    ))
      models.unshift({ value: slug, name: slug });
    options.push({
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: current,
      options: models,
    });
    const efforts = modelEntry(state, current)?.supportedReasoningEfforts ?? [];
    const effort = session.settings.effort;
    if (efforts.length > 0 && effort) {
      const listed = efforts.map((e) => ({
        value: e.reasoningEffort,
        name: effortName(e.reasoningEffort),
        ...(e.description ? { description: e.description } : {}),
      }));
      const unlisted = allowedEfforts(session, state).filter((e) => !listed.some((l) => l.value === e));
      options.push({
        id: "reasoning_effort",
        name: "Reasoning effort",
        category: "thought_level",
        type: "select",
        currentValue: effort,
        options: [...unlisted.map((e) => ({ value: e, name: effortName(e) })), ...listed],
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
        options: [
          { value: STANDARD_TIER, name: "Standard" },
          ...allowedTiers(session, state)
            .filter((t) => t !== STANDARD_TIER && !tiers.some((listed) => listed.id === t))
            .map((t) => ({ value: t, name: t })),
          ...tiers.map((t) => ({
            value: t.id,
            name: t.name,
            ...(t.description ? { description: t.description } : {}),
          })),
        ],
      });
    }
  }
  if (state.profiles && state.profiles.names.length > 0) {
    const { names, current } = state.profiles;
    options.push({
      id: "profile",
      name: "Profile",
      description:
        "A Codex profile ($CODEX_HOME/<name>.config.toml), applied to this session as codex --profile <name> applies it",
      category: "_profile",
      type: "select",
      currentValue: current,
      options: [
        { value: "none", name: "None", description: "config.toml's own settings" },
        ...[...new Set([...names, current])].filter((n) => n !== "none").map((n) => ({ value: n, name: n })),
      ],
    });
  }
  options.push(suggestionsOption(session, state));
  return options;
}

const SUGGESTIONS_ID = "prompt_suggestions";

/** Prompt suggestions (features/prompt-suggestions.ts): a switch where the client takes booleans, else an off/on choice. Off unless turned on. */
function suggestionsOption(session: AcpSession, state: ConfigState): acp.SessionConfigOption {
  const on = session.settings.promptSuggestions === true;
  const common = {
    id: SUGGESTIONS_ID,
    name: "Prompt suggestions",
    description: "After each turn, suggest the message you are likely to send next (one more model call per turn)",
    // Not a category the spec names: custom ones take a leading underscore.
    category: "_prompt_suggestions",
  };
  if (state.booleans) return { ...common, type: "boolean", currentValue: on };
  return {
    ...common,
    type: "select",
    currentValue: on ? "on" : "off",
    options: [
      { value: "off", name: "Off" },
      { value: "on", name: "On" },
    ],
  };
}

/** Codex's word for no particular service tier. */
const STANDARD_TIER = "default";

/** The efforts the session's model takes: its catalog's, the one in effect, and the session's own while on its own model. */
function allowedEfforts(session: AcpSession, state: ConfigState): string[] {
  const { model, effort } = session.settings;
  const own = state.own?.model === model ? state.own?.effort : undefined;
  return [...new Set([...(own ? [own] : []), ...(effort ? [effort] : []), ...effortsOf(modelEntry(state, model))])];
}

/** The speeds the session's model takes: standard, its catalog's, the one in effect, and the session's own while on its own model. */
function allowedTiers(session: AcpSession, state: ConfigState): string[] {
  const { model } = session.settings;
  const own = state.own?.model === model ? state.own?.serviceTier : undefined;
  const listed = modelEntry(state, model)?.serviceTiers.map((t) => t.id) ?? [];
  return [...new Set([STANDARD_TIER, ...(own ? [own] : []), serviceTierOf(session, state), ...listed])];
}

/** The tier in effect: the one chosen in this session, else the model's default. */
function serviceTierOf(session: AcpSession, state: ConfigState): string {
  return session.settings.serviceTier ?? modelEntry(state, session.settings.model)?.defaultServiceTier ?? STANDARD_TIER;
}

/** The tier a fast-mode switch stands for: the model's only tier when on, standard when off. */
function booleanTier(session: AcpSession, state: ConfigState, on: boolean): string {
  const tiers = modelEntry(state, session.settings.model)?.serviceTiers ?? [];
  const [only] = tiers;
  if (!only || tiers.length !== 1) {
    throw invalidParams(
      { value: on },
      `The model ${session.settings.model ?? ""} has ${tiers.length === 0 ? "no speeds to switch" : "several speeds: choose one by id"}`,
    );
  }
  return on ? only.id : STANDARD_TIER;
}

/**
 * The settings a switch to `model` makes (undefined: a model not in the catalog, taken as it is):
 * `effort` when given, else the session's effort if the model has it, else the model's default;
 * a service tier the new model lacks goes back to standard.
 */
export function modelSettings(
  session: AcpSession,
  model: Model | undefined,
  slug: string,
  effort?: string,
): Partial<ThreadSettings> {
  const efforts = effortsOf(model);
  const current = session.settings.effort;
  const keepEffort = !model || (current !== undefined && efforts.includes(current));
  const efforted =
    effort !== undefined ? { effort } : keepEffort ? {} : { effort: model.defaultReasoningEffort ?? efforts[0] };
  const tier = session.settings.serviceTier;
  const keepTier =
    tier === undefined || tier === STANDARD_TIER || model?.serviceTiers.some((t) => t.id === tier) === true;
  return { model: model?.model ?? slug, ...efforted, ...(keepTier ? {} : { serviceTier: undefined }) };
}

/** session/set_config_option. */
export async function setConfigOption(
  session: AcpSession,
  state: ConfigState,
  configId: string,
  value: unknown,
  services: AgentServices,
): Promise<acp.SessionConfigOption[]> {
  if (typeof value === "boolean" && configId === "service_tier") value = booleanTier(session, state, value);
  if (typeof value === "boolean" && configId === SUGGESTIONS_ID) value = value ? "on" : "off";
  if (typeof value !== "string")
    throw invalidParams({ configId }, `The option "${shown(configId)}" takes a value id (a string)`);
  switch (configId) {
    case "mode":
      await setMode(session, value, services);
      break;
    case "collaboration_mode": {
      const choice = state.collaborationModes.find((m) => m.mode === value);
      if (!choice)
        throw invalidParams(
          { value },
          `Unknown collaboration mode "${shown(value)}"; available: ${state.collaborationModes.map((m) => m.mode).join(", ")}`,
        );
      session.update({ settings: { collaborationMode: choice.mode } });
      break;
    }
    case "model": {
      const model = modelEntry(state, value);
      const own = !model && value === state.own?.model;
      if (!model && value !== session.settings.model && !own) {
        throw invalidParams(
          { value },
          `Unknown model "${shown(value)}"; available: ${state.models.map((m) => m.model).join(", ")}`,
        );
      }
      // Back to the session's own model: with its own effort.
      session.update({ settings: modelSettings(session, model, value, own ? state.own?.effort : undefined) });
      break;
    }
    case "reasoning_effort": {
      const efforts = allowedEfforts(session, state);
      if (!efforts.includes(value)) {
        throw invalidParams(
          { value },
          `The model ${session.settings.model ?? ""} supports the reasoning efforts ${efforts.join(", ") || "(none)"}; not "${shown(value)}"`,
        );
      }
      session.update({ settings: { effort: value } });
      break;
    }
    case "service_tier": {
      const tiers = allowedTiers(session, state);
      if (tiers.length === 1 || !tiers.includes(value)) {
        throw invalidParams(
          { value },
          `The model ${session.settings.model ?? ""} offers the speeds ${tiers.join(", ")}; not "${shown(value)}"`,
        );
      }
      session.update({ settings: { serviceTier: value } });
      break;
    }
    case SUGGESTIONS_ID:
      if (value !== "on" && value !== "off")
        throw invalidParams({ value }, `Prompt suggestions are "on" or "off"; not "${shown(value)}"`);
      session.update({ settings: { promptSuggestions: value === "on" } });
      break;
    default:
      throw invalidParams(
        { configId },
        `Unknown config option "${shown(configId)}"; available: ${configOptions(session, state)
          .map((o) => o.id)
          .join(", ")}`,
      );
  }
  services.log.info({ sessionId: session.id, configId, value }, "config option set");
  return configOptions(session, state);
}
