// A session's Codex profile (profiles.ts): which one, and how it applies to the session's thread.
// As `--profile` does, its keys go over config.toml's top level, and the editor's choices over both:
// choosing a profile sets what it names; a choice the editor makes after it (a mode, a model, an
// effort) stays on top; another profile, or none, puts back what the first one set, as it was under
// it (config.toml's, or the editor's before it). The mode, model and effort options show what it
// leads to. A thread Codex keeps nothing of yet (never prompted: the choice an editor applies as the
// session opens) starts anew with it, so even what only a thread's start takes (the model provider)
// applies; a thread with turns gets the settings a turn carries from its next turn, the rest when
// Codex next opens it (a load, a new codex), its provider never (Codex cannot change it).
import type { JsonValue, v2 } from "../../codex/index.js";
import { CodexRpcError } from "../../codex/index.js";
import { invalidParams, shown } from "../../core/index.js";
import type { AgentServices } from "../../core/index.js";
import {
  CUSTOM_MODE,
  DEFAULT_MODE,
  modePreset,
  presetOfSettings,
  presetSettings,
  sandboxPolicyOf,
  setMode,
} from "../../core/index.js";
import type { AcpSession, ModeId, ThreadSettings } from "../../core/index.js";
import type { OpenedPolicy } from "../../core/index.js";
import { modelEntry, type ConfigState } from "./catalog.js";
import { modelSettings } from "./options.js";
import {
  checkProfile,
  NO_PROFILE,
  refusal,
  threadKeysOf,
  turnValuesOf,
  type Profile,
  type TurnField,
  type TurnValues,
} from "./profiles.js";

type Policy = Pick<ThreadSettings, "approvalPolicy" | "sandbox" | "approvalsReviewer">;
/** What the profile's settings were over: the values, and the mode they made (with its approvals, sandbox and reviewer). */
type Under = TurnValues & { mode?: ModeId; policy?: Policy; openedWith?: OpenedPolicy };

const POLICY_FIELDS = ["approvalPolicy", "sandbox", "approvalsReviewer"] as const satisfies readonly TurnField[];
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const policyOf = (s: Policy): Policy => ({
  approvalPolicy: s.approvalPolicy,
  sandbox: s.sandbox,
  approvalsReviewer: s.approvalsReviewer ?? "user",
});

export class ProfileChoice {
  constructor(
    /** The profile's name, or NO_PROFILE. */
    public name: string = NO_PROFILE,
    /** What the profile set of the settings a turn carries, as it set them. */
    private applied: TurnValues = {},
    /** What those were under it. */
    private under: Under = {},
    /** The config overrides it gave the thread. */
    private threadKeys: readonly string[] = [],
  ) {}

  /**
   * The profile a loaded (resumed, forked) thread runs with: what it set is
   * taken as set by it, over config.toml's top level (for the settings a session opened without it).
   */
  static opened(
    name: string,
    profile: Profile,
    answer: v2.ConfigReadResponse | undefined,
    state: ConfigState,
    session: AcpSession,
  ): ProfileChoice {
    const config = answer?.config;
    const policySet = config?.approval_policy != null || config?.sandbox_mode != null;
    const auto = policySet ? undefined : modePreset(DEFAULT_MODE);
    const effort =
      config?.model_reasoning_effort ??
      modelEntry(state, config?.model ?? session.settings.model)?.defaultReasoningEffort;
    const under: Under = {
      ...(config?.model ? { model: config.model } : {}),
      ...(effort ? { effort } : {}),
      ...(config?.service_tier ? { serviceTier: config.service_tier } : {}),
      ...(config?.approval_policy
        ? { approvalPolicy: config.approval_policy }
        : auto
          ? { approvalPolicy: auto.approvalPolicy }
          : {}),
      ...(config?.sandbox_mode ? { sandbox: config.sandbox_mode } : auto ? { sandbox: auto.sandbox } : {}),
      approvalsReviewer: config?.approvals_reviewer ?? "user",
      ...(auto ? { mode: auto.id, policy: policyOf(auto) } : {}),
    };
    return new ProfileChoice(name, turnValuesOf(profile), under, Object.keys(threadKeysOf(profile, true)));
  }

  /** The thread's config overrides with this profile's replaced by `profile`'s. */
  private configWith(session: AcpSession, profile: Profile | undefined, starting: boolean): ThreadSettings["config"] {
    const kept = Object.entries(session.settings.config ?? {}).filter(([key]) => !this.threadKeys.includes(key));
    const config: { [key: string]: JsonValue } = { ...Object.fromEntries(kept), ...threadKeysOf(profile, starting) };
    return Object.keys(config).length > 0 ? config : undefined;
  }

  /**
   * Applies `profile` (undefined: none) to the session: checked by Codex first (a thread started
   * anew with it, or an ephemeral one), nothing changed when Codex refuses it. `providerOf`: the
   * model provider the thread runs on. Says the provider a thread started anew runs on.
   */
  async choose(
    session: AcpSession,
    state: ConfigState,
    name: string,
    profile: Profile | undefined,
    services: AgentServices,
    providerOf: () => Promise<string | undefined>,
  ): Promise<{ provider?: string }> {
    if (!profile && this.name === NO_PROFILE) return {}; // none again: nothing to put back
    const wanted = turnValuesOf(profile);
    const fields = new Set([...Object.keys(this.applied), ...Object.keys(wanted)] as TurnField[]);
    const under: Under = { ...this.under };
    const next: TurnValues = {};
    for (const field of fields) {
      const current = session.settings[field];
      // What the profile set and the editor left is the profile's doing: under it is what was there before.
      const below = field in this.applied && same(current, this.applied[field]) ? this.under[field] : current;
      Object.assign(under, { [field]: below });
      Object.assign(next, { [field]: field in wanted ? wanted[field] : below });
    }
    // The mode under the profile: the session's, unless it is the profile's doing.
    if (POLICY_FIELDS.every((f) => !(f in this.applied) || !same(session.settings[f], this.applied[f])))
      Object.assign(under, {
        mode: session.mode,
        policy: policyOf(session.settings),
        openedWith: session.settings.openedWith,
      });

    const settings: Partial<ThreadSettings> = {};
    const model = next.model ?? session.settings.model;
    if (fields.has("model") && model && model !== session.settings.model)
      Object.assign(
        settings,
        modelSettings(session, modelEntry(state, model), model, fields.has("effort") ? next.effort : undefined),
      );
    else if (fields.has("effort") && next.effort !== session.settings.effort) settings.effort = next.effort;
    if (fields.has("serviceTier")) settings.serviceTier = next.serviceTier;
    const mode = POLICY_FIELDS.some((f) => fields.has(f))
      ? modeFor(
          session,
          { ...session.settings, ...pick(next, POLICY_FIELDS) },
          under,
          POLICY_FIELDS.some((f) => f in wanted),
        )
      : undefined;
    if (mode?.settings) Object.assign(settings, mode.settings);

    let answer: v2.ThreadStartResponse | undefined;
    try {
      // Never prompted: the thread starts anew with all of it (Codex's check too).
      answer = await session.startAnew({
        ...session.settings,
        ...settings,
        config: this.configWith(session, profile, true),
      });
    } catch (err) {
      if (err instanceof CodexRpcError && profile)
        throw await refusal(services, session.settings.cwd, profile, err.message);
      throw err;
    }
    const starting = answer !== undefined;
    if (!answer && profile) {
      const checked = await checkProfile(services, session.settings.cwd, profile);
      const provider = profile.keys.model_provider !== undefined ? await providerOf() : undefined;
      if (provider !== undefined && checked.modelProvider !== provider) {
        throw invalidParams(
          { profile: profile.name, key: "model_provider", value: profile.keys.model_provider },
          `The profile "${shown(profile.name)}" sets model_provider = "${shown(checked.modelProvider)}", but this session's thread runs on "${shown(provider)}": Codex cannot change a thread's model provider once it has turns. Choose the profile in a new session.`,
        );
      }
    }
    services.log.debug(
      {
        sessionId: session.id,
        profile: name,
        model: settings.model,
        effort: settings.effort,
        approvalPolicy: settings.approvalPolicy,
        sandbox: settings.sandbox,
        mode: mode?.id,
      },
      "the profile's settings",
    );
    session.update({ settings: { ...settings, config: this.configWith(session, profile, starting) } });
    if (mode) await setMode(session, mode.id, services);
    this.name = name;
    this.applied = wanted;
    this.under = under;
    this.threadKeys = Object.keys(threadKeysOf(profile, true));
    return answer ? { provider: answer.modelProvider } : {};
  }
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => k in from).map((k) => [k, from[k]])) as Partial<Pick<T, K>>;
}

/**
 * The mode the approvals, sandbox and reviewer lead to: the one they were under, when they are
 * back to it (Review Edits shares Read Only's settings); a preset they match; else the Custom mode,
 * standing for them (the profile's) or for what the thread opened with (back to none).
 */
function modeFor(
  session: AcpSession,
  policy: Policy,
  under: Under,
  fromProfile: boolean,
): { id: ModeId; settings?: Partial<ThreadSettings> } | undefined {
  const back = under.mode !== undefined && under.policy !== undefined && same(policyOf(policy), under.policy);
  if (back && under.mode === CUSTOM_MODE && under.openedWith)
    return { id: CUSTOM_MODE, settings: { openedWith: under.openedWith } };
  const previous = back ? modePreset(under.mode!) : undefined;
  const preset = previous ?? presetOfSettings(policy);
  if (preset)
    return { id: preset.id, settings: presetSettings(preset, session.roots, session.settings.workspaceWrite) };
  if (!policy.approvalPolicy || !policy.sandbox) return undefined;
  const openedWith: OpenedPolicy = {
    approvalPolicy: policy.approvalPolicy,
    approvalsReviewer: policy.approvalsReviewer ?? "user",
    sandboxPolicy: sandboxPolicyOf(policy.sandbox, session.roots, session.settings.workspaceWrite),
  };
  return fromProfile || !under.openedWith
    ? { id: CUSTOM_MODE, settings: { ...policyOf(policy), openedWith, sandboxPolicy: openedWith.sandboxPolicy } }
    : { id: CUSTOM_MODE, settings: { openedWith: under.openedWith } };
}
