// ACP's unstable `auth/status` (advertised as `agentCapabilities.auth.status`) and its
// `auth/status_update` notification, from Codex's `account/read` and what the agent learned
// since (a refusal by the model provider). Display information only: never a key or a token.
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { v2 } from "../codex/index.js";
import type { Agent } from "../core/index.js";
import { usable, type CredentialCheck, type CredentialState } from "./credentials.js";

/** How an account is shown: what it is, the user and the workspace, nothing that signs in. */
function describeAccount(account: v2.Account): acp.AuthAccount {
  switch (account.type) {
    case "apiKey":
      return { label: "OpenAI API key", active: true };
    case "chatgpt":
      return {
        label: account.planType === "unknown" ? "ChatGPT" : `ChatGPT (${account.planType.replaceAll("_", " ")} plan)`,
        active: true,
        ...(account.email ? { email: account.email } : {}),
        ...(account.workspaceName ? { organization: account.workspaceName } : {}),
      };
    case "amazonBedrock":
      return { label: "Amazon Bedrock", active: true };
    case "gcp":
      return { label: "Google Cloud", active: true };
  }
}

/**
 * The status of what is known: `authenticated` with the account, `not_required` when the model
 * provider needs no OpenAI sign-in, `unauthenticated` without an account or after a refusal (a
 * session would not work), `unknown` when Codex could not say.
 */
export function authStatusOf(state: CredentialState): acp.AuthStatusResponse {
  const read = state.account;
  if (!read) return { state: state.refused ? "unauthenticated" : "unknown" };
  const accounts = read.account ? { accounts: [describeAccount(read.account)] } : {};
  if (!usable(state)) return { state: "unauthenticated", ...accounts };
  return { state: read.account ? "authenticated" : "not_required", ...accounts };
}

/**
 * Answers `auth/status`, and from a client's first `auth/status` on (the client reads the unstable
 * schema), tells it `auth/status_update` whenever the status differs from the last one it got.
 */
export function registerAuthStatus(agent: Agent, credentials: CredentialCheck): void {
  const { log } = agent.services;
  agent.advertise({ agentCapabilities: () => ({ auth: { status: {} } }) });
  let listening = false;
  let lastSent: string | undefined;
  // One status at a time, in order: a later change never overtakes an earlier one.
  let sending: Promise<void> = Promise.resolve();

  const read = (): Promise<acp.AuthStatusResponse> =>
    credentials.state().then(authStatusOf, () => ({ state: "unknown" }) satisfies acp.AuthStatusResponse);

  agent.app.onRequest(acp.methods.agent.auth.status, async () => {
    const status = await read();
    listening = true;
    lastSent = JSON.stringify(status);
    return status;
  });

  credentials.onChange(() => {
    if (!listening) return;
    sending = sending
      .then(async () => {
        const status = await read();
        const text = JSON.stringify(status);
        if (text === lastSent) return;
        lastSent = text;
        log.info({ state: status.state }, "sign-in status changed");
        await agent.services.client().notify(acp.methods.client.auth.statusUpdate, status);
      })
      .catch((err: unknown) => log.debug({ err: String(err) }, "auth/status_update not sent"));
  });
}
