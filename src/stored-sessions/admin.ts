// Managing stored sessions: session/fork and session/set_title (ACP's unstable schema, registered
// by method name); delete, archive and status are archive.ts's. A fork is Codex's copy of the
// thread (`thread/fork`), opened as a new session: its first prompt carries the source's history.
import { randomUUID } from "node:crypto";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { existsSync } from "node:fs";
import type { ThreadSettings } from "../core/index.js";
import { DEFAULT_SETTINGS, type Agent } from "../core/index.js";
import { invalidParams } from "../core/index.js";
import type { StoredSessions } from "./lifecycle.js";
import { TITLE_MAX } from "../core/index.js";
import { setThreadName } from "../core/index.js";

const nameValue = z.object({ name: z.string(), value: z.string() });
/** The MCP servers of a session request (stdio, http, sse), checked as the ACP schema has them. */
const mcpServerSchema = z.union([
  z.object({ type: z.literal("http"), name: z.string(), url: z.string(), headers: z.array(nameValue) }),
  z.object({ type: z.literal("sse"), name: z.string(), url: z.string(), headers: z.array(nameValue) }),
  z.object({ name: z.string(), command: z.string(), args: z.array(z.string()), env: z.array(nameValue) }),
]);
const forkParamsSchema = z.object({
  sessionId: z.string(),
  systemPrompt: z.unknown().optional(),
  cwd: z.string(),
  additionalDirectories: z.array(z.string()).optional(),
  mcpServers: z.array(mcpServerSchema).optional(),
});
const setTitleParamsSchema = z.object({ sessionId: z.string(), title: z.string() });

export const FORK_METHOD = "session/fork";
export const SET_TITLE_METHOD = "session/set_title";

/** Registers session/fork and session/set_title, and advertises them. */
export function registerSessionAdmin(agent: Agent, stored: StoredSessions): void {
  const { log } = agent.services;
  // fork and title are unstable capabilities: typed here, carried as is.
  const unstable: Pick<acp.SessionCapabilities, "fork" | "title"> = { fork: {}, title: {} };
  agent.advertise({ sessionCapabilities: () => unstable });

  agent.app
    .onRequest(FORK_METHOD, forkParamsSchema, async ({ params }) => {
      const { thread: source } = await stored.threads.require(params.sessionId);
      const cwd = await agent.validateCwd(params.cwd);
      const request: acp.NewSessionRequest = {
        cwd,
        mcpServers: params.mcpServers ?? [],
        ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
        // Checked by the system-prompt feature like any other opening's.
        ...(params.systemPrompt != null ? { systemPrompt: params.systemPrompt as acp.SystemPrompt } : {}),
      };
      // A thread never prompted has no history for Codex to copy (thread/fork finds no rollout): its
      // fork is a new session with its model and effort when it is open here.
      const empty = source.path != null && !existsSync(source.path);
      const live = empty ? agent.state.sessions.get(params.sessionId) : undefined;
      const settings = { ...DEFAULT_SETTINGS, ...(live ? forkableSettings(live.settings) : {}), cwd };
      const { session, response } = await agent.openSession({
        kind: "new",
        ...(empty ? {} : { forkOf: params.sessionId }),
        request,
        settings,
        key: randomUUID(),
      });
      log.info({ sessionId: session.id, forkOf: params.sessionId }, "session forked");
      return { sessionId: session.id, ...response };
    })
    .onRequest(SET_TITLE_METHOD, setTitleParamsSchema, async ({ params }) => {
      const title = params.title.replace(/\s+/g, " ").trim();
      if (!title) throw invalidParams({ title: params.title }, "The title is empty");
      if (title.length > TITLE_MAX * 4)
        throw invalidParams({ title: params.title }, `The title is longer than ${TITLE_MAX * 4} characters`);
      const { threadId } = await stored.threads.require(params.sessionId);
      await setThreadName(agent.services, threadId, title);
      return { title };
    });
}

/** What a fork of a session never prompted keeps of it: its model and effort (a fork starts in auto, as every fork does). */
function forkableSettings(s: Readonly<ThreadSettings>): Partial<ThreadSettings> {
  return { ...(s.model ? { model: s.model } : {}), ...(s.effort ? { effort: s.effort } : {}) };
}
