// The config options' Codex profile (profiles.ts, profile-choice.ts) across a session's life: the
// option made from the profiles in Codex's home ($CODEX_HOME/<name>.config.toml) as the session
// opens, the choice applied, and kept per thread (the core's ThreadMemory, in
// $CODEX_HOME/codex-cli-acp/session-profiles/) once Codex keeps the thread (a new one from its first
// turn: one never prompted leaves nothing to load). A load, resume or fork brings it back: its keys
// given to the thread as Codex opens it, the option showing it; a profile gone (or broken) since is
// dropped, with a warning.
import { z } from "zod";
import { invalidParams, shown } from "../../core/index.js";
import type { AgentServices, SessionOpening } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";
import { ThreadMemory } from "../../core/index.js";
import type { ConfigState } from "./catalog.js";
import { ProfileChoice } from "./profile-choice.js";
import { listProfiles, NO_PROFILE, PROFILE_NAME, readProfile, threadKeysOf, type Profile } from "./profiles.js";

const providerSchema = z.looseObject({ modelProvider: z.string().nullish() });

export class ProfileFeature {
  private memory: ThreadMemory | undefined;
  private readonly choices = new WeakMap<AcpSession, ProfileChoice>();
  /** The profile a stored thread comes back with, from prepare to attach. */
  private readonly restoring = new WeakMap<SessionOpening, { name: string; profile: Profile }>();
  /** The model provider each session's thread runs on, read when a profile names one. */
  private readonly providers = new WeakMap<AcpSession, () => Promise<string | undefined>>();
  /** Sessions whose thread Codex keeps (loaded, forked, or prompted): their choice is kept at once. */
  private readonly kept = new WeakSet<AcpSession>();

  constructor(
    /** Where the choice is kept per thread. */
    private readonly dir: string,
    /** Codex's home: where the profiles are. */
    private readonly codexHome: string,
  ) {}

  private memoryOf(services: AgentServices): ThreadMemory {
    return (this.memory ??= new ThreadMemory(this.dir, services.log, {
      what: "profile",
      value: PROFILE_NAME,
      maxBytes: 512,
    }));
  }

  /** A stored thread's profile: its keys go to Codex with the resume (or fork). */
  async prepare(opening: SessionOpening, services: AgentServices): Promise<void> {
    const stored =
      opening.kind === "new" ? opening.forkOf : "sessionId" in opening.request ? opening.request.sessionId : undefined;
    if (stored === undefined) return;
    const name = await this.memoryOf(services).recall(stored);
    if (name === undefined) return;
    let profile: Profile;
    try {
      profile = await readProfile(this.codexHome, name, await services.host.userConfig.read(opening.settings.cwd));
    } catch (err) {
      services.log.warn(
        { sessionId: stored, profile: name, err: err instanceof Error ? err.message : String(err) },
        "the thread's profile cannot be read any more; the session opens without it",
      );
      return;
    }
    const keys = threadKeysOf(profile, false);
    if (Object.keys(keys).length > 0) opening.settings.config = { ...opening.settings.config, ...keys };
    this.restoring.set(opening, { name, profile });
  }

  abandon(opening: SessionOpening): void {
    this.restoring.delete(opening);
  }

  /** The session's profile option (none without profiles), and its choice kept once Codex keeps the thread. */
  async attach(
    session: AcpSession,
    opening: SessionOpening,
    state: ConfigState,
    services: AgentServices,
  ): Promise<void> {
    const names = await listProfiles(this.codexHome);
    const opened = this.restoring.get(opening);
    this.restoring.delete(opening);
    if (names.length === 0 && !opened) return;
    const answer = opened ? await services.host.userConfig.read(session.settings.cwd) : undefined;
    const choice = opened
      ? ProfileChoice.opened(opened.name, opened.profile, answer, state, session)
      : new ProfileChoice();
    this.choices.set(session, choice);
    state.profiles = { names, current: choice.name };
    const thread = opening.storedThread;
    if (thread)
      this.providers.set(session, async () => providerSchema.parse(await thread()).modelProvider ?? undefined);
    if (opening.kind !== "new" || opening.forkOf !== undefined) {
      this.kept.add(session);
      if (opening.forkOf !== undefined && opened) await this.remember(session, services);
    }
    session.on("beforeTurn", async () => {
      if (this.kept.has(session)) return;
      this.kept.add(session);
      if (this.choices.get(session)?.name !== NO_PROFILE) await this.remember(session, services);
    });
  }

  /** session/set_config_option `profile`: applied (Codex's refusal is the client's error), shown, kept. */
  async choose(session: AcpSession, state: ConfigState, value: string, services: AgentServices): Promise<void> {
    const choice = this.choices.get(session);
    if (!choice)
      throw invalidParams(
        { configId: "profile" },
        `This session has no profile option: Codex's home (${this.codexHome}) has no <name>.config.toml profile`,
      );
    const names = await listProfiles(this.codexHome);
    state.profiles = { names, current: choice.name };
    if (value !== NO_PROFILE && !names.includes(value)) {
      throw invalidParams(
        { value },
        `Unknown profile "${shown(value)}"; available: ${[NO_PROFILE, ...names].join(", ")}`,
      );
    }
    const profile =
      value === NO_PROFILE
        ? undefined
        : await readProfile(this.codexHome, value, await services.host.userConfig.read(session.settings.cwd));
    const provider = this.providers.get(session) ?? (async () => undefined);
    const started = await choice.choose(session, state, value, profile, services, provider);
    if (started.provider !== undefined) this.providers.set(session, async () => started.provider);
    state.profiles.current = choice.name;
    services.log.info({ sessionId: session.id, profile: value }, "profile set");
    if (this.kept.has(session)) await this.remember(session, services);
  }

  private remember(session: AcpSession, services: AgentServices): Promise<void> {
    const name = this.choices.get(session)?.name;
    return this.memoryOf(services).remember(session.id, name === NO_PROFILE ? undefined : name);
  }

  sessionDeleted(sessionId: string, services: AgentServices): Promise<void> {
    return this.memoryOf(services).remember(sessionId, undefined);
  }
}
