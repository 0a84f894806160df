// What Codex lists for a session's choices: its models (`model/list`, with each model's reasoning
// efforts and service tiers) and its collaboration modes (`collaborationMode/list`), each fetched
// once per app-server child.
import { z } from "zod";
import type { CodexHost, ModeKind } from "../../codex/index.js";
import type { AgentServices } from "../../core/index.js";

const modelSchema = z.looseObject({
  id: z.string(),
  model: z.string(),
  displayName: z.string().optional(),
  description: z.string().optional(),
  hidden: z.boolean().optional(),
  isDefault: z.boolean().optional(),
  supportedReasoningEfforts: z
    .array(z.looseObject({ reasoningEffort: z.string(), description: z.string().optional() }))
    .default([]),
  defaultReasoningEffort: z.string().nullish(),
  serviceTiers: z
    .array(z.looseObject({ id: z.string(), name: z.string(), description: z.string().optional() }))
    .default([]),
  defaultServiceTier: z.string().nullish(),
});
export type Model = z.infer<typeof modelSchema>;
const modelListSchema = z.looseObject({ data: z.array(modelSchema), nextCursor: z.string().nullish() });
const collaborationListSchema = z.looseObject({
  data: z.array(z.looseObject({ name: z.string(), mode: z.string().nullable() })),
});

/** What Codex lists (models, collaboration modes), fetched once per app-server child. */
export type Catalogs<T> = WeakMap<CodexHost, { generation: number; list: Promise<T[]> }>;

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
export function listCollaborationModes(
  services: AgentServices,
  catalogs: Catalogs<CollaborationModeChoice>,
): Promise<CollaborationModeChoice[]> {
  return cachedList(services, catalogs, async () => {
    const client = await services.host.client();
    const res = await client.call("collaborationMode/list", {}, collaborationListSchema);
    return res.data.flatMap((m) => (m.mode === "plan" || m.mode === "default" ? [{ mode: m.mode, name: m.name }] : []));
  });
}

/** The models a user may pick (Codex's hidden ones left out). */
export function listModels(services: AgentServices, catalogs: Catalogs<Model>): Promise<Model[]> {
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

/** What a session's choices are made from. */
export type ConfigState = {
  models: Model[];
  collaborationModes: CollaborationModeChoice[];
  /** The client takes boolean options (`session.configOptions.boolean`): a model's one fast tier is a switch. */
  booleans?: boolean;
  /** The client declares config option capabilities (`session.configOptions`): it reads them, so it gets no legacy `models`. */
  readsOptions?: boolean;
  /**
   * What the session opened with (the user's config.toml, or the stored thread): offered and
   * taken back even where the catalog does not list it (a local model, the "minimal" effort).
   */
  own?: { model?: string; effort?: string; serviceTier?: string };
  /** The profiles in Codex's home (<name>.config.toml), and the session's ("none" for none): no option without any. */
  profiles?: { names: string[]; current: string };
};

export function modelEntry(state: ConfigState, slug: string | undefined): Model | undefined {
  return state.models.find((m) => m.model === slug || m.id === slug);
}

/** The reasoning efforts a model supports, by id. */
export function effortsOf(model: Model | undefined): string[] {
  return model?.supportedReasoningEfforts.map((e) => e.reasoningEffort) ?? [];
}

export function effortName(effort: string): string {
  return effort === "xhigh" ? "Extra high" : effort.charAt(0).toUpperCase() + effort.slice(1);
}
