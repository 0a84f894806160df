// Where a session's history goes: session/archive and session/unarchive (ACP's unstable schema:
// Codex's thread/archive and thread/unarchive, reversible, the history kept), session/delete
// (stable: Codex's thread/delete, for good) and session/status (open here, saved by Codex, or
// unknown). Archive and delete both end a session open here as session/close would (its running
// turn cancelled): archive before it acts on the stored thread, delete once Codex has deleted it
// (one Codex refuses to delete stays open). They differ where ACP has them differ: an
// archived session stays listed under the archive filter and comes back with unarchive; a deleted
// one is in no list again (which is why delete cannot be archive now that the archive filter
// exists), and deleting what does not exist succeeds.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { CodexRpcError } from "../codex/index.js";
import type { Agent } from "../core/agent.js";
import { invalidParams, sessionNotFound, toRequestError } from "../core/errors.js";
import type { SessionOpenings } from "./lifecycle.js";
import { codexClient, isArchived, neverPrompted, readThread } from "./threads.js";

/** Registers session/delete, archive, unarchive and status, and advertises them (delete and archive in turn with loads of the same id). */
export function registerSessionArchive(agent: Agent, openings: SessionOpenings): void {
  const { host, log } = agent.services;
  // archive and status are unstable capabilities: typed here, carried as is.
  const capabilities: Pick<acp.SessionCapabilities, "delete" | "archive" | "status"> = { delete: {}, archive: {}, status: {} };
  agent.state.agentCapabilities.sessionCapabilities = { ...agent.state.agentCapabilities.sessionCapabilities, ...capabilities };

  /** The session open here, if it is. */
  const openHere = (sessionId: string) => {
    const session = agent.state.sessions.get(sessionId);
    return session && !session.isClosed ? session : undefined;
  };

  /** Ends a session open here as session/close would: its turns cancelled, its resources freed. */
  async function closeIfOpen(sessionId: string): Promise<boolean> {
    const open = openHere(sessionId);
    if (!open) return false;
    await open.cancel();
    await agent.closeSession(open);
    return true;
  }

  agent.app
    .onRequest(acp.methods.agent.session.delete, ({ params }) => openings.oneAtATime(params.sessionId, async () => {
      const { sessionId } = params;
      // Deleting from here on: a prompt sent meanwhile is refused as for a closed session (as
      // during session/close); its running turn ends now, the session itself once Codex deleted it.
      const open = openHere(sessionId);
      if (open) agent.state.sessions.delete(sessionId);
      const keepOpen = (): void => {
        if (open && !open.isClosed && !agent.state.sessions.has(sessionId)) agent.state.sessions.set(sessionId, open);
      };
      await open?.cancel();
      try {
        await (await codexClient(host)).call("thread/delete", { threadId: sessionId });
      } catch (err) {
        if (!(err instanceof CodexRpcError)) {
          keepOpen();
          throw toRequestError(err);
        }
        // A thread Codex keeps but will not delete (a fork's history still uses it): say so; an
        // "ok" here would leave it listed and stored while the user believes it gone. The session
        // stays open: Codex unloaded its thread before refusing, so its next prompt resumes it.
        if (await readThread(host, sessionId)) {
          open?.threadUnloaded();
          keepOpen();
          log.info({ sessionId, reason: err.message }, "session delete refused by codex");
          throw invalidParams({ sessionId }, `Codex keeps this session: ${err.message}. Archive it instead (session/archive), or delete what was forked from it first.`);
        }
        // Delete is idempotent (the spec's SHOULD): an id Codex stores nothing for (unknown, deleted
        // already, or never prompted) is deleted by having nothing left open.
        if (open) await agent.closeSession(open);
        log.info({ sessionId, reason: err.message }, "session delete: nothing stored to delete");
        return {};
      }
      if (open) await agent.closeSession(open);
      log.info({ sessionId }, "session deleted (its Codex thread and history removed)");
      await agent.threadDeleted(sessionId);
      return {};
    }))
    .onRequest(acp.methods.agent.session.archive, ({ params }) => openings.oneAtATime(params.sessionId, async () => {
      const thread = await readThread(host, params.sessionId);
      const wasOpen = await closeIfOpen(params.sessionId);
      // Never prompted and open here: closing it was all there was (Codex keeps nothing of it).
      if (!thread || neverPrompted(thread)) {
        if (wasOpen) return {};
        throw sessionNotFound(params.sessionId, `no Codex thread ${params.sessionId} in this CODEX_HOME`);
      }
      if (isArchived(thread)) return {}; // archiving an archived session succeeds
      try {
        await (await codexClient(host)).call("thread/archive", { threadId: params.sessionId });
      } catch (err) {
        throw toRequestError(err);
      }
      log.info({ sessionId: params.sessionId, wasOpen }, "session archived");
      return {};
    }))
    .onRequest(acp.methods.agent.session.unarchive, async ({ params }) => {
      const thread = await readThread(host, params.sessionId);
      if (!thread || (neverPrompted(thread) && !openHere(params.sessionId))) {
        throw sessionNotFound(params.sessionId, `no Codex thread ${params.sessionId} in this CODEX_HOME`);
      }
      if (!isArchived(thread)) return {}; // unarchiving what is not archived succeeds
      try {
        await (await codexClient(host)).call("thread/unarchive", { threadId: params.sessionId });
      } catch (err) {
        throw toRequestError(err);
      }
      log.info({ sessionId: params.sessionId }, "session unarchived");
      return {};
    })
    .onRequest(acp.methods.agent.session.status, async ({ params }) => {
      // No side effect: thread/read loads nothing, and the session is not touched.
      if (openHere(params.sessionId)) return { status: "open" };
      const thread = await readThread(host, params.sessionId);
      if (thread && !neverPrompted(thread)) return { status: "saved" };
      throw sessionNotFound(params.sessionId, `${params.sessionId} is neither open here nor stored in this CODEX_HOME`);
    });
}
