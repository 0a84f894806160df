// The account's usage limits as Codex last reported them, merged: `account/rateLimits/updated` is
// a sparse rolling update (a null field is "not in this update", never "cleared"), one snapshot
// per metered limit (`limitId`, e.g. "codex"). Also decides when a window deserves a warning:
// once when it is nearly used up and once when it is used up, per window (a window is over at its
// reset time, or when its use drops back), however many updates repeat the figures.
import { z } from "zod";
import type { v2 } from "../../codex/index.js";

/** From this share of a window on, the user is warned that it is nearly used up. */
export const NEARLY_USED_UP_PERCENT = 90;

const windowSchema = z.looseObject({
  usedPercent: z.number(),
  windowDurationMins: z.number().nullish(),
  resetsAt: z.number().nullish(),
}) satisfies z.ZodType<Pick<v2.RateLimitWindow, "usedPercent"> & Partial<v2.RateLimitWindow>>;

const creditsSchema = z.looseObject({
  hasCredits: z.boolean(),
  unlimited: z.boolean(),
  balance: z.string().nullish(),
}) satisfies z.ZodType<Omit<v2.CreditsSnapshot, "balance"> & Partial<Pick<v2.CreditsSnapshot, "balance">>>;

const snapshotSchema = z.looseObject({
  limitId: z.string().nullish(),
  limitName: z.string().nullish(),
  primary: windowSchema.nullish(),
  secondary: windowSchema.nullish(),
  credits: creditsSchema.nullish(),
  planType: z.string().nullish(),
  rateLimitReachedType: z.string().nullish(),
});

/** What the adapter reads of `account/rateLimits/updated` (checked: it crosses from codex). */
export const rateLimitsUpdatedSchema = z.looseObject({ rateLimits: snapshotSchema });

/** A snapshot as Codex sends it (the notification's, or `account/rateLimits/read`'s typed result). */
type ReportedSnapshot = z.infer<typeof snapshotSchema> | v2.RateLimitSnapshot;

export type LimitWindow = { usedPercent: number; windowDurationMins: number | null; resetsAt: number | null };
export type Credits = { hasCredits: boolean; unlimited: boolean; balance: string | null };
/** One metered limit as known so far (the shape clients get in usage_update's `_meta`). */
export type Limit = {
  limitId: string;
  limitName: string | null;
  primary: LimitWindow | null;
  secondary: LimitWindow | null;
  credits: Credits | null;
  planType: string | null;
  rateLimitReachedType: string | null;
};

export type WindowSlot = "primary" | "secondary";
/** A window that crossed a warning level: nearly used up, or used up. */
export type LimitAlert = { limit: Limit; slot: WindowSlot; window: LimitWindow; level: "nearly" | "reached" };

const LEVELS = { none: 0, nearly: 1, reached: 2 } as const;

function levelOf(usedPercent: number): keyof typeof LEVELS {
  return usedPercent >= 100 ? "reached" : usedPercent >= NEARLY_USED_UP_PERCENT ? "nearly" : "none";
}

function windowOf(w: z.infer<typeof windowSchema> | v2.RateLimitWindow): LimitWindow {
  return { usedPercent: w.usedPercent, windowDurationMins: w.windowDurationMins ?? null, resetsAt: w.resetsAt ?? null };
}

function hasData(limit: Limit): boolean {
  return limit.primary !== null || limit.secondary !== null || limit.credits !== null;
}

/** The account's limits (one per process: they are the account's, not a session's). */
export class AccountLimits {
  private readonly limits = new Map<string, Limit>();
  /** The highest level warned about per window (limit id and slot), and when that window ends. */
  private readonly warned = new Map<string, { level: number; until: number | null }>();
  /** What usage_update's `_meta` carries: rebuilt when an update changes something, shared until then. */
  private meta: Record<string, Limit> | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Merges one reported snapshot; returns the windows that crossed a warning level with it. */
  merge(reported: ReportedSnapshot): LimitAlert[] {
    const limitId = reported.limitId ?? "codex";
    const known = this.limits.get(limitId);
    const limit: Limit = {
      limitId,
      limitName: reported.limitName ?? known?.limitName ?? null,
      primary: reported.primary ? windowOf(reported.primary) : (known?.primary ?? null),
      secondary: reported.secondary ? windowOf(reported.secondary) : (known?.secondary ?? null),
      credits: reported.credits
        ? {
            hasCredits: reported.credits.hasCredits,
            unlimited: reported.credits.unlimited,
            balance: reported.credits.balance ?? null,
          }
        : (known?.credits ?? null),
      planType: reported.planType ?? known?.planType ?? null,
      rateLimitReachedType: reported.rateLimitReachedType ?? known?.rateLimitReachedType ?? null,
    };
    // Codex sends an update with every model answer, most often repeating what is known: no new object then.
    if (known && JSON.stringify(known) === JSON.stringify(limit)) return [];
    this.limits.set(limitId, limit);
    this.meta = undefined;
    const alerts: LimitAlert[] = [];
    for (const slot of ["primary", "secondary"] as const) {
      const window = reported[slot] ? limit[slot] : null;
      if (!window) continue;
      const alert = this.crossed(`${limitId}/${slot}`, window);
      if (alert) alerts.push({ limit, slot, window, level: alert });
    }
    return alerts;
  }

  /** The level a window reached for the first time in this window, if it did. */
  private crossed(key: string, window: LimitWindow): "nearly" | "reached" | undefined {
    const level = levelOf(window.usedPercent);
    const warned = this.warned.get(key);
    // That window is over (its reset time passed, or its use dropped back): the next one warns anew.
    if (warned && ((warned.until !== null && this.now() >= warned.until * 1000) || level === "none"))
      this.warned.delete(key);
    const before = this.warned.get(key)?.level ?? LEVELS.none;
    if (level === "none" || LEVELS[level] <= before) return undefined;
    this.warned.set(key, { level: LEVELS[level], until: window.resetsAt });
    return level;
  }

  /** The limits Codex reported anything for, by limit id. */
  known(): Limit[] {
    return [...this.limits.values()].filter(hasData);
  }

  /** The latest figures for usage_update's `_meta` (undefined until Codex reported any). */
  usageMeta(): Record<string, Limit> | undefined {
    if (this.meta) return this.meta;
    const known = this.known();
    if (known.length === 0) return undefined;
    this.meta = Object.fromEntries(known.map((limit) => [limit.limitId, limit]));
    return this.meta;
  }
}
