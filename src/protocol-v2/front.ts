// ACP v2 in front of the v1 agent: a v2 client's requests become the agent's v1 requests over an
// in-process v1 connection, and what the agent sends that client (updates, permission requests,
// elicitations) becomes v2. One agent, one bridge, one set of features behind both protocols;
// only this edge knows v2. Each v2 session's foreground state (state_update) is kept here.
import { randomUUID } from "node:crypto";
import * as v1 from "@agentclientprotocol/sdk/unstable";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { Logger } from "../log/index.js";
import {
  toV1Initialize,
  toV1McpServers,
  toV1SetConfigOption,
  toV2ConfigOptions,
  toV2Initialize,
  toV2SessionAnswer,
} from "./shapes.js";
import { V2Session, type PromptEnd } from "./turn-state.js";
import { toV2Permission } from "./permissions.js";
import { JsonRpcCode } from "../json-rpc/index.js";

/** A connector the SDK's protocol router hands a v2 client's connection to. */
export function v2Front(agent: v1.AgentApp, log: Logger): v2.AgentConnector {
  return {
    connect(stream, options) {
      const sessions = new Map<string, V2Session>();
      let client: v2.AgentContext | undefined;
      /** The MCP transports initialize advertised: what session/new, fork and resume accept. */
      let mcpTransports: v2.McpCapabilities | undefined;
      /** Queues an update in the order the agent sent it; the promise says when it is written (a resume's state must precede its answer). */
      const send = (sessionId: string, update: v2.SessionUpdate): Promise<void> =>
        (client?.notify(v2.methods.client.session.update, { sessionId, update }) ?? Promise.resolve()).catch(
          (err: unknown) => log.debug({ err: String(err) }, "a v2 update was not delivered"),
        );
      const sessionOf = (sessionId: string): V2Session => {
        let session = sessions.get(sessionId);
        if (!session) sessions.set(sessionId, (session = new V2Session((update) => void send(sessionId, update))));
        return session;
      };
      const known = (sessionId: string): V2Session => {
        const session = sessions.get(sessionId);
        if (!session) throw v2.RequestError.resourceNotFound(sessionId);
        return session;
      };

      // The agent's side: what it sends its (v1) client goes to the v2 client, mapped.
      const inner = v1
        .client({ name: "codex-cli-acp v2 front" })
        .onNotification(v1.methods.client.session.update, ({ params }) => {
          const session = sessionOf(params.sessionId);
          for (const update of session.mapper.map(params.update)) void send(params.sessionId, update);
        })
        .onRequest(v1.methods.client.session.requestPermission, async ({ params, signal }) => {
          if (!client) return { outcome: { outcome: "cancelled" } };
          const session = sessionOf(params.sessionId);
          const id = params.toolCall.toolCallId;
          const controller = new AbortController();
          signal.addEventListener("abort", () => controller.abort(), { once: true });
          session.waiting.set(id, controller);
          session.waitingChanged();
          // While it waits, the tool call (and a command's terminal, same id) can be cancelled alone.
          void send(params.sessionId, {
            sessionUpdate: "tool_call_update",
            toolCallId: id,
            capabilities: { cancel: {} },
          });
          try {
            const answer = await client.request(
              v2.methods.client.session.requestPermission,
              toV2Permission(params, session.mapper),
              { cancellationSignal: controller.signal, stopWaitingOnCancel: true },
            );
            return answer.outcome.outcome === "selected" && "optionId" in answer.outcome
              ? { outcome: { outcome: "selected", optionId: String(answer.outcome.optionId) } }
              : { outcome: { outcome: "cancelled" } };
          } catch (err) {
            // Withdrawn (cancel, close) or refused by the client: nothing is approved.
            log.debug({ err: String(err), toolCallId: id }, "a v2 permission request ended without an answer");
            return { outcome: { outcome: "cancelled" } };
          } finally {
            session.waiting.delete(id);
            void send(params.sessionId, { sessionUpdate: "tool_call_update", toolCallId: id, capabilities: null });
            session.waitingChanged();
          }
        })
        .onRequest(v1.methods.client.elicitation.create, async ({ params }) => {
          if (!client) return { action: "cancel" };
          return await client.request(v2.methods.client.elicitation.create, params as v2.CreateElicitationRequest);
        })
        .onNotification(v1.methods.client.elicitation.complete, ({ params }) => {
          void client?.notify(v2.methods.client.elicitation.complete, params).catch(() => undefined);
        })
        .onNotification(v1.methods.client.auth.statusUpdate, ({ params }) => {
          void client?.notify("auth/status_update", params).catch(() => undefined);
        })
        .onNotification("*", ({ method, params }) => {
          // The agent's own extension notifications (`_...`) reach a v2 client as they are.
          if (method.startsWith("_")) void client?.notify(method as `_${string}`, params).catch(() => undefined);
        });
      const toAgent = inner.connect(agent);
      const core = toAgent.agent;

      const prompt = (session: V2Session, params: v2.PromptRequest): void => {
        session.promptStarted();
        const ended = (end: PromptEnd): void => session.promptEnded(end);
        core
          .request(v1.methods.agent.session.prompt, {
            sessionId: params.sessionId,
            prompt: params.prompt as v1.ContentBlock[],
            ...(params._meta ? { _meta: params._meta } : {}),
          })
          .then(
            (answer) => ended({ stopReason: answer.stopReason, usage: answer.usage ?? null }),
            (err: unknown) => ended({ error: errorObject(err) }),
          );
      };

      const front = v2
        .agent({ name: "codex-cli-acp" })
        .onConnect((connection) => {
          client = connection.client;
          void connection.closed.finally(() => {
            for (const session of sessions.values()) session.withdrawAll();
            toAgent.close();
          });
        })
        .onRequest(v2.methods.agent.initialize, async ({ params }) => {
          const answer = toV2Initialize(await core.request(v1.methods.agent.initialize, toV1Initialize(params)));
          mcpTransports = answer.capabilities?.session?.mcp ?? undefined;
          return answer;
        })
        .onRequest(
          v2.methods.agent.auth.login,
          async ({ params }) =>
            (await core.request(v1.methods.agent.authenticate, {
              methodId: params.methodId,
              ...(params._meta ? { _meta: params._meta } : {}),
            })) ?? {},
        )
        .onRequest(
          v2.methods.agent.auth.logout,
          async ({ params }) => (await core.request(v1.methods.agent.logout, params)) ?? {},
        )
        .onRequest(
          "auth/status",
          async ({ params }) => await core.request<v2.AuthStatusResponse>(v1.methods.agent.auth.status, params),
        )
        .onRequest(v2.methods.agent.session.new, async ({ params }) => {
          v2.assertSupportedMcpServers(params.mcpServers, mcpTransports);
          const answer = await core.request(v1.methods.agent.session.new, { ...openParams(params) });
          sessionOf(answer.sessionId);
          return { sessionId: answer.sessionId, ...toV2SessionAnswer(answer) };
        })
        .onRequest("session/fork", async ({ params }) => {
          v2.assertSupportedMcpServers(params.mcpServers, mcpTransports);
          const answer = await core.request(v1.methods.agent.session.fork, {
            sessionId: params.sessionId,
            ...openParams(params),
          });
          sessionOf(answer.sessionId);
          return { sessionId: answer.sessionId, ...toV2SessionAnswer(answer) };
        })
        .onRequest(v2.methods.agent.session.resume, async ({ params }) => {
          v2.assertSupportedMcpServers(params.mcpServers, mcpTransports);
          const replay = params.replayFrom ?? undefined;
          if (replay && replay.type !== "start")
            throw v2.RequestError.invalidParams(
              { replayFrom: replay },
              `replay from "${String(replay.type)}" is not supported; use {"type":"start"} or leave it out`,
            );
          const hadSession = sessions.has(params.sessionId);
          const session = sessionOf(params.sessionId);
          session.mapper.replaying(replay !== undefined);
          try {
            const request = { sessionId: params.sessionId, ...openParams(params) };
            const answer = replay
              ? await core.request(v1.methods.agent.session.load, { ...request, mcpServers: request.mcpServers ?? [] })
              : await core.request(v1.methods.agent.session.resume, request);
            // After any replay and before the answer: the session's state now.
            await send(params.sessionId, session.snapshot());
            return toV2SessionAnswer(answer);
          } catch (err) {
            // A session this connection did not have before stays unknown when it cannot be resumed.
            if (!hadSession) sessions.delete(params.sessionId);
            throw err;
          } finally {
            session.mapper.replaying(false);
          }
        })
        .onRequest(v2.methods.agent.session.prompt, ({ params }) => {
          const session = known(params.sessionId);
          if (params.prompt.length === 0)
            throw v2.RequestError.invalidParams({ prompt: [] }, "a prompt needs at least one content block");
          const messageId = randomUUID();
          prompt(session, params);
          // The user's message, echoed as v2 asks: the answer names it.
          void send(params.sessionId, { sessionUpdate: "user_message", messageId, content: params.prompt });
          return { messageId };
        })
        .onNotification(v2.methods.agent.session.cancel, async ({ params }) => {
          sessions.get(params.sessionId)?.withdrawAll();
          await core.notify(v1.methods.agent.session.cancel, params);
        })
        .onRequest(v2.methods.agent.session.setConfigOption, async ({ params }) => {
          const answer = await core.request(v1.methods.agent.session.setConfigOption, toV1SetConfigOption(params));
          return {
            configOptions: toV2ConfigOptions(answer.configOptions),
            ...(answer._meta ? { _meta: answer._meta } : {}),
          };
        })
        .onRequest(v2.methods.agent.session.close, async ({ params }) => {
          sessions.get(params.sessionId)?.withdrawAll();
          const answer = await core.request(v1.methods.agent.session.close, params);
          sessions.delete(params.sessionId);
          return answer ?? {};
        })
        .onRequest(v2.methods.agent.session.delete, async ({ params }) => {
          sessions.get(params.sessionId)?.withdrawAll();
          sessions.delete(params.sessionId);
          return (await core.request(v1.methods.agent.session.delete, params)) ?? {};
        })
        .onRequest(
          v2.methods.agent.session.list,
          async ({ params }) => await core.request<v2.ListSessionsResponse>(v1.methods.agent.session.list, params),
        )
        .onRequest(
          "session/archive",
          async ({ params }) => (await core.request(v1.methods.agent.session.archive, params)) ?? {},
        )
        .onRequest(
          "session/unarchive",
          async ({ params }) => (await core.request(v1.methods.agent.session.unarchive, params)) ?? {},
        )
        .onRequest(
          "session/set_title",
          async ({ params }) => (await core.request(v1.methods.agent.session.setTitle, params)) ?? {},
        )
        .onRequest("session/status", async ({ params }) => {
          const answer = await core.request(v1.methods.agent.session.status, params);
          const session = sessions.get(params.sessionId);
          const { sessionUpdate: _tag, ...state } = session?.snapshot() ?? {
            sessionUpdate: "state_update",
            state: "idle",
          };
          return { ...answer, state };
        })
        .onRequest(
          "providers/list",
          async ({ params }) => await core.request<v2.ListProvidersResponse>(v1.methods.agent.providers.list, params),
        )
        .onRequest(
          "providers/set",
          async ({ params }) => (await core.request(v1.methods.agent.providers.set, params)) ?? {},
        )
        .onRequest(
          "providers/disable",
          async ({ params }) => (await core.request(v1.methods.agent.providers.disable, params)) ?? {},
        )
        .onRequest(v2.methods.agent.toolCall.cancel, ({ params }) =>
          withdraw(known(params.sessionId), params.toolCallId, "tool call"),
        )
        .onRequest(v2.methods.agent.terminal.cancel, ({ params }) =>
          withdraw(known(params.sessionId), params.terminalId, "terminal"),
        )
        .onRequest("*", ({ method, params }) => {
          // The agent's extension methods (steering...) answer a v2 client as they answer a v1 one.
          if (method.startsWith("_")) return core.request(method as `_${string}`, params);
          throw v2.RequestError.methodNotFound(method);
        });
      const connector: v2.AgentConnector = front;
      return connector.connect(stream, options);
    },
  };
}

/**
 * tool_call/cancel and terminal/cancel: what can be stopped alone is a tool call (a command's
 * terminal shares its id) still waiting on the client's permission; it is then not run. A command
 * already running stops only with its turn (session/cancel): Codex has no way to stop one command.
 */
function withdraw(session: V2Session, id: string, what: string): Record<string, never> {
  const waiting = session.waiting.get(id);
  if (!waiting)
    throw v2.RequestError.invalidParams(
      { id },
      `the ${what} ${id} is not waiting on a permission: only those can be cancelled alone (session/cancel stops the turn)`,
    );
  waiting.abort();
  return {};
}

/** session/new, fork and resume's common params, in v1's shape. */
function openParams(params: {
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: v2.McpServer[];
  systemPrompt?: unknown;
  _meta?: Record<string, unknown> | null;
}): {
  cwd: string;
  mcpServers: v1.McpServer[];
  additionalDirectories?: string[];
  systemPrompt?: v1.SystemPrompt;
  _meta?: Record<string, unknown>;
} {
  return {
    cwd: params.cwd,
    mcpServers: toV1McpServers(params.mcpServers),
    ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
    ...(params.systemPrompt ? { systemPrompt: params.systemPrompt as v1.SystemPrompt } : {}),
    ...(params._meta ? { _meta: params._meta } : {}),
  };
}

function errorObject(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof v1.RequestError)
    return { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) };
  return { code: JsonRpcCode.InternalError, message: err instanceof Error ? err.message : String(err) };
}
