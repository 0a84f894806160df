// Codex operations that more than one part of the agent runs (a slash command and an ACP request
// alike): one place, so a feature never reaches into stored-sessions or sign-in for them.
import type { AgentServices } from "./feature-api.js";
import { toRequestError } from "./errors.js";

/** Names a thread (`thread/name/set`): session/set_title and `/rename`. */
export async function setThreadName(
  services: Pick<AgentServices, "host" | "log">,
  threadId: string,
  title: string,
): Promise<void> {
  try {
    await (await services.host.client()).call("thread/name/set", { threadId, name: title });
  } catch (err) {
    throw toRequestError(err);
  }
  services.log.info({ sessionId: threadId }, "session renamed");
}

/** Signs out of Codex (`account/logout`): the logout request and `/logout`. */
export async function signOut(services: Pick<AgentServices, "host" | "log">): Promise<void> {
  try {
    await (await services.host.client()).call("account/logout", undefined);
  } catch (err) {
    throw toRequestError(err);
  }
  services.host.accountChanged();
  services.log.info("signed out");
}
