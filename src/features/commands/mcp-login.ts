// `/mcp login <server>`: Codex's OAuth sign-in for one of the session's MCP servers
// (mcpServer/oauth/login, which answers with the authorization page and waits on a loopback
// callback of its own). The page reaches the user as an ACP URL elicitation when the client
// declares that mode, else as text; the prompt is answered at once, and a card (a tool call) says
// how the sign-in ends: Codex's `mcpServer/oauthLogin/completed`, then the server starting again
// with its new credentials (Codex restarts it by itself). Tokens never pass through here; the
// page's address is not logged either (its `state` belongs to this sign-in alone). Codex has no
// way to cancel an MCP sign-in: one given up here (declined, replaced, the session closed) leaves
// Codex's callback listening until its own time limit, harmlessly.
import { randomUUID } from "node:crypto";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { textContent } from "../../bridge/index.js";
import type { v2 } from "../../codex/index.js";
import type { AgentServices } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";
import { failureText } from "./mcp-status.js";

/** How long a sign-in is waited for (Codex gives up on its callback sooner, and says so). */
const LOGIN_DEADLINE_MS = 10 * 60_000;
/** After a sign-in, how long the server's new start is waited for before the card ends anyway. */
const RESTART_WAIT_MS = 30_000;

type Outcome = { status: "completed" | "failed"; text: string };

/** The sign-ins a session waits for, by server; calling one ends it (with no outcome: quietly, as the session closes). */
export type McpLogins = Map<string, (outcome?: Outcome) => void>;

const USAGE = "Give the server to sign in to: `/mcp login <server>` (`/mcp` lists the servers and which need it).\n";

/** Runs `/mcp login <name>`: starts the sign-in, shows its page, and returns what the prompt answers. */
export async function mcpLoginText(
  session: AcpSession,
  name: string,
  services: AgentServices,
  logins: McpLogins,
): Promise<string> {
  if (!name) return USAGE;
  const log = { sessionId: session.id, server: name };
  const again = `send \`/mcp login ${name}\` to try again`;
  // Listening before the login is started, so nothing Codex says about it can be missed.
  const early: v2.McpServerOauthLoginCompletedNotification[] = [];
  let onCompleted = (done: v2.McpServerOauthLoginCompletedNotification): void => void early.push(done);
  let onStartup = (_status: v2.McpServerStatusUpdatedNotification): void => undefined;
  const unsubscribe = session.on("notification", (n) => {
    if (n.method === "mcpServer/oauthLogin/completed" && n.params.name === name) onCompleted(n.params);
    if (n.method === "mcpServer/startupStatus/updated" && n.params.name === name) onStartup(n.params);
  });

  let started: v2.McpServerOauthLoginResponse;
  let generation: number;
  try {
    const client = await session.ensureAttached();
    generation = services.host.currentGeneration;
    started = await client.call("mcpServer/oauth/login", { name, threadId: session.threadId });
  } catch (err) {
    unsubscribe();
    services.log.warn({ ...log, err: String(err) }, "the MCP server sign-in could not start");
    return failureText(`start the sign-in to ${name}`, err);
  }
  if (session.isClosed) {
    unsubscribe();
    return "";
  }
  const loginId = started.loginId;
  const cardId = `mcp-login-${loginId ?? randomUUID()}`;
  const update = (status: acp.ToolCallStatus, text: string): void => {
    if (!session.isClosed)
      void session
        .send({ sessionUpdate: "tool_call_update", toolCallId: cardId, status, content: [textContent(text)] })
        .catch(() => undefined);
  };

  // The page asked through the client: withdrawn if the sign-in ends first, and once the user
  // accepted it, told complete when it ends.
  const withdraw = new AbortController();
  let accepted = false;
  const elicitationId = loginId ?? cardId;
  const page: acp.CreateElicitationRequest = {
    mode: "url",
    sessionId: session.id,
    toolCallId: cardId,
    elicitationId,
    url: started.authorizationUrl,
    message: `Sign in to the MCP server ${name}`,
  };

  let ended = false;
  const end = (outcome?: Outcome): void => {
    if (ended) return;
    ended = true;
    clearTimeout(deadline);
    clearTimeout(restartWait);
    unsubscribe();
    stopExitWatch();
    if (logins.get(name) === end) logins.delete(name);
    if (accepted)
      void services
        .client()
        .notify(acp.methods.client.elicitation.complete, { elicitationId })
        .catch(() => undefined);
    else withdraw.abort();
    if (!outcome) return;
    services.log.info({ ...log, loginId, status: outcome.status }, "MCP server sign-in ended");
    update(outcome.status, outcome.text);
  };
  const deadline = setTimeout(
    () =>
      end({
        status: "failed",
        text: `The sign-in to ${name} did not complete within ${LOGIN_DEADLINE_MS / 60_000} minutes; ${again}.`,
      }),
    LOGIN_DEADLINE_MS,
  );
  deadline.unref();
  let restartWait: NodeJS.Timeout | undefined;
  const stopExitWatch = services.host.onExit((_exit, exited) => {
    if (exited === generation)
      end({ status: "failed", text: `Codex stopped during the sign-in to ${name}; ${again}.` });
  });
  logins.get(name)?.({ status: "failed", text: "Replaced by a newer sign-in to this server." });
  logins.set(name, end);

  onCompleted = (done) => {
    // Another attempt's end (an older Codex names none: then it is this one's).
    if (done.loginId != null && loginId !== undefined && done.loginId !== loginId) return;
    if (!done.success)
      return end({
        status: "failed",
        text: `Sign-in to ${name} failed: ${done.error ?? "no reason given"}; ${again}.`,
      });
    // Codex starts the server again with its new credentials: the card ends when it has.
    onStartup = (status) => {
      if (status.status === "ready") end({ status: "completed", text: `Signed in to ${name}; it is connected.` });
      else if (status.status === "failed")
        end({
          status: "failed",
          text: `Signed in to ${name}, but it failed to start: ${status.error ?? "no reason given"}.`,
        });
    };
    restartWait = setTimeout(() => end({ status: "completed", text: `Signed in to ${name}.` }), RESTART_WAIT_MS);
    restartWait.unref();
  };
  services.log.info({ ...log, loginId }, "MCP server sign-in started");
  await session.send({
    sessionUpdate: "tool_call",
    toolCallId: cardId,
    title: `Sign in to MCP server ${name}`,
    kind: "other",
    status: "in_progress",
    content: [textContent(`Waiting for the sign-in in the browser (up to ${LOGIN_DEADLINE_MS / 60_000} minutes).`)],
  });
  for (const done of early.splice(0)) onCompleted(done);

  if (!services.clientCapabilities().elicitation?.url)
    return `To sign in to **${name}**, open this page: ${started.authorizationUrl}\nThe card shows when the sign-in is done.\n`;
  void askToOpen();
  return `Opening the sign-in page of **${name}** through the editor; the card shows when the sign-in is done.\n`;

  async function askToOpen(): Promise<void> {
    await session.flush();
    if (ended) return;
    try {
      const answer = await services
        .client()
        .request(acp.methods.client.elicitation.create, page, { cancellationSignal: withdraw.signal });
      if (answer.action !== "accept")
        return end({
          status: "failed",
          text: `The sign-in page was not opened (${answer.action === "decline" ? "declined" : "cancelled"}); ${again}.`,
        });
      accepted = true;
      // Done while the editor was still asking: it can close its page now.
      if (ended)
        void services
          .client()
          .notify(acp.methods.client.elicitation.complete, { elicitationId })
          .catch(() => undefined);
    } catch (err) {
      if (withdraw.signal.aborted) return;
      // The editor could not show it: the page goes on the card, and the sign-in goes on.
      services.log.warn(
        { ...log, err: String(err) },
        "the client could not show the MCP sign-in page; it is on the card",
      );
      update("in_progress", `Open this page to sign in to ${name}: ${started.authorizationUrl}`);
    }
  }
}
