// Where a session's history goes: session/archive and session/unarchive (ACP's unstable schema:
// Codex's thread/archive and thread/unarchive, reversible, the history kept), session/delete
// (stable: Codex's thread/delete, for good) and session/status (open here, saved by Codex, or
// unknown). Archive and delete both end a session open here as session/close would (its running
// turn cancelled): archive before it acts on the stored thread, delete once Codex has let it go.
// They differ where ACP has them differ: an archived session stays listed under the archive
// filter and comes back with unarchive; a deleted one is in no list again and cannot be loaded,
// and deleting what does not exist succeeds. A session whose history a fork still reads, Codex
// will not delete: it is archived and remembered as deleted (deletions.ts), so the user's delete
// succeeds and the fork keeps its whole history; Codex deletes it after its last fork.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { CodexRpcError, type CodexHost } from "../codex/index.js";
import type { Agent } from "../core/index.js";
import { internalError, sessionNotFound, toRequestError } from "../core/index.js";
import type { Logger } from "../log/index.js";
import type { StoredSessions } from "./lifecycle.js";
import type { DeletedThreads } from "./deletions.js";
import { codexClient, isArchived, neverPrompted, readThread } from "./threads.js";

/** Registers session/delete, archive, unarchive and status, and advertises them (delete and archive in turn with loads of the same id). */
export function registerSessionArchive(agent: Agent, stored: StoredSessions): void {
  const { host, log } = agent.services;
  const { threads } = stored;
  // archive and status are unstable capabilities: typed here, carried as is.
  const capabilities: Pick<acp.SessionCapabilities, "delete" | "archive" | "status"> = {
    delete: {},
    archive: {},
    status: {},
  };
  agent.advertise({ sessionCapabilities: () => capabilities });

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
    .onRequest(acp.methods.agent.session.delete, ({ params }) =>
      stored.oneAtATime(params.sessionId, async () => {
        const { sessionId } = params;
        // Deleting from here on: a prompt sent meanwhile is refused as for a closed session (as
        // during session/close); its running turn ends now, the session itself once Codex let it go.
        const open = openHere(sessionId);
        if (open) agent.withdrawSession(open);
        const keepOpen = (): void => {
          if (open) agent.restoreSession(open);
        };
        await open?.cancel();
        const threadId = open?.threadId ?? (await threads.threadOf(sessionId));
        let outcome: "deleted" | "kept for a fork" | "nothing stored";
        try {
          outcome = (await threads.deleted.has(threadId))
            ? "nothing stored"
            : await deleteThread(host, threadId, threads.deleted);
        } catch (err) {
          keepOpen();
          throw toRequestError(err);
        }
        if (open) await agent.closeSession(open);
        // Deleted from the user's side whatever Codex keeps: the features forget it (its mode...).
        await agent.sessionDeleted(sessionId);
        log.info({ sessionId, threadId, outcome }, "session deleted");
        // A thread kept for a fork of this one may be free to go now.
        if (outcome === "deleted") await deleteFreedThreads(host, threads.deleted, log);
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.archive, ({ params }) =>
      stored.oneAtATime(params.sessionId, async () => {
        const found = await threads.read(params.sessionId);
        const wasOpen = await closeIfOpen(params.sessionId);
        // Never prompted and open here: closing it was all there was (Codex keeps nothing of it).
        if (!found || neverPrompted(found.thread)) {
          if (wasOpen) return {};
          throw sessionNotFound(params.sessionId, `no Codex thread ${params.sessionId} in this CODEX_HOME`);
        }
        if (isArchived(found.thread)) return {}; // archiving an archived session succeeds
        try {
          await (await codexClient(host)).call("thread/archive", { threadId: found.threadId });
        } catch (err) {
          throw toRequestError(err);
        }
        log.info({ sessionId: params.sessionId, wasOpen }, "session archived");
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.unarchive, async ({ params }) => {
      const found = await threads.read(params.sessionId);
      if (!found || (neverPrompted(found.thread) && !openHere(params.sessionId))) {
        throw sessionNotFound(params.sessionId, `no Codex thread ${params.sessionId} in this CODEX_HOME`);
      }
      if (!isArchived(found.thread)) return {}; // unarchiving what is not archived succeeds
      try {
        await (await codexClient(host)).call("thread/unarchive", { threadId: found.threadId });
      } catch (err) {
        throw toRequestError(err);
      }
      log.info({ sessionId: params.sessionId }, "session unarchived");
      return {};
    })
    .onRequest(acp.methods.agent.session.status, async ({ params }) => {
      // No side effect: thread/read loads nothing, and the session is not touched.
      if (openHere(params.sessionId)) return { status: "open" };
      const found = await threads.read(params.sessionId);
      if (found && !neverPrompted(found.thread)) return { status: "saved" };
      throw sessionNotFound(params.sessionId, `${params.sessionId} is neither open here nor stored in this CODEX_HOME`);
    });
}

/**
 * Deletes a session's thread: Codex's thread/delete, or, for a thread Codex keeps because a fork's
 * history reads it, thread/archive and the deletion remembered. Codex's refusals are not errors
 * here: an id it stores nothing for (unknown, deleted already, never prompted) is deleted already
 * (delete is idempotent, the spec's SHOULD).
 */
async function deleteThread(
  host: CodexHost,
  threadId: string,
  deleted: DeletedThreads,
): Promise<"deleted" | "kept for a fork" | "nothing stored"> {
  const client = await codexClient(host);
  try {
    await client.call("thread/delete", { threadId });
    return "deleted";
  } catch (err) {
    if (!(err instanceof CodexRpcError)) throw err;
    const kept = await readThread(host, threadId);
    if (!kept || neverPrompted(kept)) return "nothing stored";
    if (!isArchived(kept)) await (await codexClient(host)).call("thread/archive", { threadId });
    try {
      await deleted.add(threadId);
    } catch (cause) {
      throw internalError(
        `Codex keeps this session for a fork (${err.message}), and it could not be marked deleted: ${cause instanceof Error ? cause.message : String(cause)}. It was archived instead.`,
      );
    }
    return "kept for a fork";
  }
}

/** Asks Codex again to delete the threads kept for deleted sessions, and forgets those it deletes; until none more goes (a fork of a fork). */
async function deleteFreedThreads(host: CodexHost, deleted: DeletedThreads, log: Logger): Promise<void> {
  for (let freed = true; freed; ) {
    freed = false;
    for (const threadId of await deleted.all()) {
      try {
        await (await codexClient(host)).call("thread/delete", { threadId });
      } catch (err) {
        // Still read by a fork (or codex is gone: the next delete tries again); one gone meanwhile is forgotten.
        const gone = err instanceof CodexRpcError && !(await readThread(host, threadId).catch(() => true));
        if (gone) await deleted.remove(threadId).catch(() => undefined);
        continue;
      }
      await deleted.remove(threadId).catch(() => undefined);
      log.info({ threadId }, "a deleted session's thread, kept for a fork, deleted by Codex now");
      freed = true;
    }
  }
}
