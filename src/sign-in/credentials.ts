// Whether Codex can be used now, as honestly as the agent can know it: Codex's account
// (`account/read`), and whether the model provider refused it during a turn (HTTP 401: a key
// revoked, a login expired), which Codex does not record. A terminal login or `codex login`
// writes CODEX_HOME/auth.json from another process, which a running app-server never rereads:
// when that file appears while Codex is not usable, the child is restarted (only when no turn
// runs) so the new account takes effect without restarting us.
import { statSync } from "node:fs";
import path from "node:path";
import type { CodexHost, v2 } from "../codex/index.js";
import type { Logger } from "../log/index.js";

/** What the agent knows of Codex's account: Codex's answer (undefined when it could not be read) and a refusal since. */
export type CredentialState = { account: v2.GetAccountResponse | undefined; refused: boolean };

/**
 * Codex's account and what the agent learned of it since. OPENAI_API_KEY / CODEX_API_KEY in the
 * agent's environment do not count by themselves: Codex's app-server does not read them (with
 * 0.169 no key reaches the model), so they sign in through a method (or DEFAULT_AUTH_REQUEST).
 */
export class CredentialCheck {
  /** Codex's account, read once per codex child until Codex says it changed (a read costs 4-16 ms on session/new's path). */
  private known: { generation: number; account: Promise<v2.GetAccountResponse | undefined> } | undefined;
  /** The provider refused the credentials (HTTP 401); auth.json as it was then, so a newer login on disk is noticed. */
  private refusal: { authFileWritten: number | undefined } | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly host: CodexHost,
    private readonly log: Logger,
  ) {
    // Heard from every codex child, including ones started after a restart.
    host.onNotification((method) => {
      if (method === "account/updated" || method === "account/login/completed") this.signedInOrOut();
    });
    host.onAccountChange(() => this.signedInOrOut());
  }

  /** Reads the account now (e.g. right after initialize), so the first session/new finds it known. */
  warm(): void {
    void this.account().catch(() => undefined);
  }

  /** Calls `listener` whenever what is known may have changed (a sign-in, a sign-out, a refusal). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A sign-in or sign-out (Codex's notification, or an authenticate that succeeded): a refusal is over. */
  signedInOrOut(): void {
    this.refusal = undefined;
    this.known = undefined;
    this.changed();
  }

  /** The model provider refused the credentials during a turn: not usable until the next sign-in. */
  refused(): void {
    if (this.refusal) return;
    this.refusal = { authFileWritten: this.authFileWritten() };
    this.log.warn("the model provider refused Codex's credentials (HTTP 401): a new sign-in is needed");
    this.changed();
  }

  /** A turn's model requests were answered: a refusal before it no longer holds. */
  accepted(): void {
    if (!this.refusal) return;
    this.refusal = undefined;
    this.log.info("the model provider accepts Codex's credentials again");
    this.changed();
  }

  /** What is known now (Codex's account read at most once per child and change). */
  async state(): Promise<CredentialState> {
    return { account: await this.account(), refused: this.refusal !== undefined };
  }

  /**
   * Whether Codex can be used now. When it cannot and a login was written to disk by another
   * process since this codex started (or since the refusal), the idle child is restarted to read it.
   */
  async ready(busy: () => boolean): Promise<boolean> {
    if (usable(await this.state())) return true;
    const written = this.authFileWritten();
    const since = Math.max(this.host.startedAt ?? Infinity, this.refusal?.authFileWritten ?? -Infinity);
    // Only a login written since (a stale or unusable file would restart it every time).
    if (written === undefined || written <= since || busy()) return false;
    this.log.info("credentials were written by another process (a terminal login?); restarting codex to use them");
    await this.host.restart("new credentials on disk");
    this.signedInOrOut();
    return usable(await this.state());
  }

  private account(): Promise<v2.GetAccountResponse | undefined> {
    const generation = this.host.currentGeneration;
    if (this.known && this.known.generation === generation) return this.known.account;
    // Codex's answer is checked against its generated schema by the client.
    const account = this.host.client().then((client) => client.call("account/read", {}).catch(() => undefined));
    this.known = { generation, account };
    // Read again next time (not a change: nobody is told).
    account.catch(() => {
      if (this.known?.account === account) this.known = undefined;
    });
    return account;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private authFileWritten(): number | undefined {
    const home = this.host.codexHome;
    return home ? statSync(path.join(home, "auth.json"), { throwIfNoEntry: false })?.mtimeMs : undefined;
  }
}

/**
 * Whether sessions can start: no refusal since the last sign-in, and an account or a provider that
 * needs none. An account Codex could not read is taken as usable (the turn will say otherwise).
 */
export function usable(state: CredentialState): boolean {
  if (state.refused) return false;
  return !state.account || state.account.account !== null || !state.account.requiresOpenaiAuth;
}
