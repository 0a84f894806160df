// Session titles: `session_info_update` {title, updatedAt} for the client's session list.
//
// Codex 0.169 never names a thread by itself: no title request reaches the model and no
// `thread/name/updated` arrives unless a client calls `thread/name/set`. Its thread list
// shows `preview` (the first user message) instead. So the title here is derived the
// same way: the first user message, one line, at most TITLE_MAX characters; it is sent
// once, when that message is first seen. A real name (`thread/name/updated`, e.g. set by
// another Codex client on the same thread) replaces it and is always forwarded.
// `session/list` uses the same derivation (see lifecycle.ts), so both views agree.
import { threadSchema, type CodexNotification, type v2 } from "../codex/index.js";
import type { AcpSession } from "../core/index.js";
import type { AgentServices, SessionFeature } from "../core/index.js";
import { deriveTitle, isoTime, threadTitle } from "../core/index.js";

function firstText(content: readonly v2.UserInput[]): string | undefined {
  const texts = content.flatMap((c) => (c.type === "text" ? [c.text] : []));
  return texts.join(" ") || undefined;
}

export function titlesFeature(): SessionFeature {
  /** The title each open session has shown (or a stored thread already had). */
  const titles = new Map<AcpSession, string>();
  /** Each open session's unsubscribe. */
  const listeners = new Map<AcpSession, () => void>();

  const announce = (
    session: AcpSession,
    title: string | undefined,
    services: AgentServices,
    updatedAt = new Date().toISOString(),
  ) => {
    if (title) titles.set(session, title);
    void session
      .send({ sessionUpdate: "session_info_update", ...(title ? { title } : {}), updatedAt })
      .catch((err: unknown) => services.log.debug({ err: String(err) }, "session_info_update not sent"));
  };

  return {
    name: "titles",
    async attach(session, opening, services) {
      if (opening.kind !== "new") {
        // A stored thread: it may have a name or a first message already.
        try {
          const thread = threadSchema.parse(await opening.storedThread!());
          const title = threadTitle(thread);
          // Tell the client what it is called (it may not have listed sessions first).
          if (title) announce(session, title, services, isoTime(thread.updatedAt));
        } catch (err) {
          services.log.debug(
            { err: String(err), sessionId: session.id },
            "reading the stored thread for the title failed",
          );
        }
      }
      const listener = (n: CodexNotification): void => {
        if (n.method === "thread/name/updated") {
          const title = n.params.threadName?.trim() || undefined;
          if (title && titles.get(session) === title) return;
          announce(session, title, services);
          return;
        }
        if (n.method === "item/completed" && n.params.item.type === "userMessage" && !titles.has(session)) {
          const title = deriveTitle(firstText(n.params.item.content));
          if (title) announce(session, title, services);
        }
      };
      listeners.set(session, session.on("notification", listener));
    },
    detach(session) {
      listeners.get(session)?.();
      listeners.delete(session);
      titles.delete(session);
    },
  };
}
