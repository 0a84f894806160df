// Codex's warnings: `configWarning` (a config.toml Codex could not read, an unknown setting, a
// missing sandbox helper), `deprecationNotice` (it names no thread) and `warning`, global or
// about one thread. The global ones come once,
// when codex starts, before any session exists: each is logged and shown to the user once per
// process, in the next turn of whichever session runs one first. A thread's warning is shown in
// its session at once, unless it repeats a global one already shown (Codex says "unknown
// setting" both ways). An ACP `notice` when the client shows notices, else a line of agent text.
// A restarted codex repeats its warnings; one already shown is not shown again. A notice that asks
// nothing of the user (bubblewrap is not on PATH, so Codex uses its bundled copy) is logged only.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { noticeUpdate, type SessionUpdate } from "../bridge/index.js";
import type { v2 } from "../codex/index.js";
import { clientDisplay } from "../core/index.js";
import type { AgentServices, SessionFeature } from "../core/index.js";
import type { AcpSession } from "../core/index.js";

/** A warning as shown (title, details); `text` is Codex's own text (what repeats). */
type Warning = { text: string; title: string; description?: string };

const configWarningSchema = z.looseObject({
  summary: z.string(),
  details: z.string().nullable().optional(),
  path: z.string().optional(),
}) satisfies z.ZodType<
  Pick<v2.ConfigWarningNotification, "summary" | "path"> & Partial<Pick<v2.ConfigWarningNotification, "details">>
>;

const deprecationSchema = z.looseObject({
  summary: z.string(),
  details: z.string().nullable().optional(),
}) satisfies z.ZodType<
  Pick<v2.DeprecationNoticeNotification, "summary"> & Partial<Pick<v2.DeprecationNoticeNotification, "details">>
>;

const warningSchema = z.looseObject({
  threadId: z.string().nullable().optional(),
  message: z.string(),
}) satisfies z.ZodType<Partial<Pick<v2.WarningNotification, "threadId">> & Pick<v2.WarningNotification, "message">>;

/** A warning as Codex wrote it, with a prefix saying what it is (noticeUpdate makes its first line the title). */
function warningOf(prefix: string, text: string, ...more: Array<string | null | undefined>): Warning {
  const description = more.filter(Boolean).join("\n");
  return { text, title: `${prefix}${text.trim()}`, ...(description ? { description } : {}) };
}

/** The warning a notification carries and the thread it is about (null: global), or undefined. */
export function warningIn(method: string, params: unknown): { warning: Warning; threadId: string | null } | undefined {
  if (method === "configWarning") {
    const w = configWarningSchema.safeParse(params);
    if (!w.success) return undefined;
    return {
      warning: warningOf(
        "Codex configuration: ",
        w.data.summary,
        w.data.details,
        w.data.path ? `(${w.data.path})` : undefined,
      ),
      threadId: null,
    };
  }
  if (method === "deprecationNotice") {
    // No thread id: Codex means the whole installation (a deprecated setting or feature).
    const d = deprecationSchema.safeParse(params);
    if (!d.success) return undefined;
    return { warning: warningOf("Deprecated: ", d.data.summary, d.data.details), threadId: null };
  }
  if (method === "warning") {
    const w = warningSchema.safeParse(params);
    if (!w.success || !w.data.message) return undefined;
    return { warning: warningOf("Warning: ", w.data.message), threadId: w.data.threadId ?? null };
  }
  return undefined;
}

/**
 * Whether a warning only says what Codex does by itself, with nothing for the user to do: that
 * bubblewrap (bwrap) is not on PATH and Codex uses the copy bundled with it (every agent process on
 * a Linux without the package: a card in every first session, in acpx every run). Matched on the
 * words, not the sentence: both names of the sandbox, and the bundled (vendored) copy.
 */
export function asksNothing(warning: Warning): boolean {
  const text = `${warning.title}\n${warning.description ?? ""}`;
  return /\b(?:bubblewrap|bwrap)\b/i.test(text) && /\b(?:bundled|vendored)\b/i.test(text);
}

export function codexWarningsFeature(): SessionFeature {
  /** Every global warning shown or queued (title and details): a restarted codex repeats them. */
  const seen = new Set<string>();
  /** Codex's own text of those warnings: what a thread's `warning` repeats. */
  const texts = new Set<string>();
  /** Global warnings not shown yet, oldest first. */
  const unshown: Warning[] = [];

  const show = (session: AcpSession, services: AgentServices, warnings: readonly Warning[]): void => {
    const display = clientDisplay(services.clientCapabilities());
    const updates: SessionUpdate[] = warnings.map((w) =>
      noticeUpdate(display, "warning", w.title, w.description, `notice-${randomUUID()}`),
    );
    for (const update of updates) void session.send(update).catch(() => undefined);
  };

  return {
    name: "codex-warnings",
    install(_app, agent) {
      const { host, log } = agent.services;
      host.onNotification((method, params) => {
        const heard = warningIn(method, params);
        if (!heard || heard.threadId !== null) return;
        if (asksNothing(heard.warning))
          return log.info({ warning: heard.warning.title }, "codex noted (not shown: nothing to do)");
        // The whole warning is its identity: two "Invalid configuration" with other details are two.
        const key = `${heard.warning.title}\n${heard.warning.description ?? ""}`;
        if (seen.has(key)) return;
        seen.add(key);
        texts.add(heard.warning.text);
        unshown.push(heard.warning);
        // Details may quote config.toml lines: debug only.
        log.warn({ warning: heard.warning.title }, "codex warned");
        log.debug({ details: heard.warning.description }, "codex warning details");
      });
    },
    attach(session, _opening, services) {
      session.on("notification", (n) => {
        if (n.method === "turn/started" && unshown.length > 0) show(session, services, unshown.splice(0));
        if (n.method !== "warning") return;
        const heard = warningIn(n.method, n.params);
        if (!heard) return;
        if (asksNothing(heard.warning))
          return services.log.info({ warning: heard.warning.title }, "codex noted (not shown: nothing to do)");
        if (!texts.has(heard.warning.text)) return show(session, services, [heard.warning]);
        // A repeat of a global warning: shown here if it was still waiting for a turn.
        const waiting = unshown.findIndex((w) => w.text === heard.warning.text);
        if (waiting >= 0) show(session, services, unshown.splice(waiting, 1));
      });
    },
  };
}
