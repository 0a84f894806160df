// The account's usage limits (Codex's rate-limit and credit windows): Codex reports them with
// every model answer (`account/rateLimits/updated`, from the model server's x-codex-* headers) and
// on request for a ChatGPT sign-in (`account/rateLimits/read`). They are the account's, so one
// copy serves every session: `/status` shows them, usage_update's `_meta` carries the latest
// figures, and a window nearly used up (90 %) or used up is a warning notice, once per window and
// level, in the session whose turn was running (else in the next turn that starts).
import { randomUUID } from "node:crypto";
import { noticeUpdate } from "../../bridge/index.js";
import { clientDisplay } from "../../core/index.js";
import type { AgentServices, SessionFeature } from "../../core/index.js";
import type { AcpSession } from "../../core/index.js";
import { AccountLimits, rateLimitsUpdatedSchema, type LimitAlert } from "./limits.js";
import { alertText, statusLines } from "./text.js";

/** The key of usage_update's `_meta` that carries the limits, by limit id (docs/protocol.md). */
export const RATE_LIMITS_META_KEY = "codex-cli-acp/rateLimits";

export function rateLimitsFeature(): SessionFeature {
  const limits = new AccountLimits();
  /** Warnings that came while no turn ran, for the next turn that starts in any session. */
  const unshown: LimitAlert[] = [];

  const show = (session: AcpSession, services: AgentServices, alerts: readonly LimitAlert[]): void => {
    const display = clientDisplay(services.clientCapabilities());
    for (const alert of alerts) {
      const { title, description } = alertText(alert);
      void session
        .send(noticeUpdate(display, "warning", title, description, `notice-${randomUUID()}`))
        .catch(() => undefined);
    }
  };

  return {
    name: "rate-limits",
    install(_app, agent) {
      const { host, log } = agent.services;
      host.onNotification((method, params) => {
        if (method !== "account/rateLimits/updated") return;
        const update = rateLimitsUpdatedSchema.safeParse(params);
        if (!update.success) {
          log.debug({ issue: update.error.issues[0]?.message }, "account/rateLimits/updated not readable; ignored");
          return;
        }
        const alerts = limits.merge(update.data.rateLimits);
        if (alerts.length === 0) return;
        log.info(
          { alerts: alerts.map((a) => ({ limit: a.limit.limitId, window: a.slot, used: a.window.usedPercent })) },
          "a usage limit is nearly or fully used",
        );
        // The turn that made the request is running now: its session hears it (the limits are the account's).
        const running = [...agent.services.sessions.values()].filter((s) => s.promptRunning && !s.isClosed);
        if (running.length === 0) unshown.push(...alerts);
        for (const session of running) show(session, agent.services, alerts);
      });
    },
    attach(session, _opening, services) {
      session.on("usageMeta", () => {
        const meta = limits.usageMeta();
        return meta ? { [RATE_LIMITS_META_KEY]: meta } : undefined;
      });
      session.on("notification", (n) => {
        if (n.method === "turn/started" && unshown.length > 0) show(session, services, unshown.splice(0));
      });
    },
    async statusLines(session, services) {
      if (limits.known().length === 0) {
        // Before any model answer: a ChatGPT sign-in can read them (an API key cannot; Codex refuses).
        try {
          const client = await services.host.client();
          const read = await client.call("account/rateLimits/read", { excludeResetCreditDetails: true });
          const snapshots = [read.rateLimits, ...Object.values(read.rateLimitsByLimitId ?? {})];
          // A window found nearly used up here is warned about here, as it would be in a turn.
          show(
            session,
            services,
            snapshots.flatMap((snapshot) => (snapshot ? limits.merge(snapshot) : [])),
          );
        } catch (err) {
          services.log.debug(
            { err: err instanceof Error ? err.message : String(err) },
            "account/rateLimits/read failed; limits not known yet",
          );
        }
      }
      return statusLines(limits.known(), Date.now());
    },
  };
}
