// The account's usage limits as merged from Codex's sparse updates, and when a window warns.
import { describe, expect, it } from "vitest";
import { AccountLimits } from "../../src/features/rate-limits/limits.js";
import { statusLines, windowName } from "../../src/features/rate-limits/text.js";

const HOUR = 3600;
const snapshot = (primary: { usedPercent: number; resetsAt?: number } | null, more: Record<string, unknown> = {}) => ({
  limitId: "codex",
  primary: primary
    ? { usedPercent: primary.usedPercent, windowDurationMins: 300, resetsAt: primary.resetsAt ?? null }
    : null,
  secondary: null,
  credits: null,
  ...more,
});

describe("account limits", () => {
  it("a sparse update keeps what it does not carry (null is not a reset)", () => {
    const limits = new AccountLimits(() => 0);
    limits.merge(snapshot({ usedPercent: 10 }, { credits: { hasCredits: true, unlimited: false, balance: "5" } }));
    limits.merge(snapshot(null, { secondary: { usedPercent: 20, windowDurationMins: 10080, resetsAt: null } }));
    expect(limits.known()).toEqual([
      expect.objectContaining({
        primary: { usedPercent: 10, windowDurationMins: 300, resetsAt: null },
        secondary: { usedPercent: 20, windowDurationMins: 10080, resetsAt: null },
        credits: { hasCredits: true, unlimited: false, balance: "5" },
      }),
    ]);
  });

  it("an update with nothing in it is not a limit, and leaves usage_update's _meta empty", () => {
    const limits = new AccountLimits(() => 0);
    limits.merge(snapshot(null));
    expect(limits.known()).toEqual([]);
    expect(limits.usageMeta()).toBeUndefined();
  });

  it("warns once per level per window, and anew once the window's reset time has passed", () => {
    let now = 0;
    const limits = new AccountLimits(() => now);
    const levels = (used: number, resetsAt: number) =>
      limits.merge(snapshot({ usedPercent: used, resetsAt })).map((a) => a.level);
    expect(levels(50, 5 * HOUR)).toEqual([]);
    expect(levels(90, 5 * HOUR)).toEqual(["nearly"]);
    expect(levels(95, 5 * HOUR)).toEqual([]);
    // Codex's reset time may move within a window: still the same window until it has passed.
    expect(levels(97, 5 * HOUR + 60)).toEqual([]);
    expect(levels(100, 5 * HOUR + 60)).toEqual(["reached"]);
    expect(levels(100, 5 * HOUR + 60)).toEqual([]);
    now = (5 * HOUR + 60) * 1000;
    expect(levels(92, 10 * HOUR)).toEqual(["nearly"]);
  });

  it("a window with no reset time starts over when its use drops back", () => {
    const limits = new AccountLimits(() => 0);
    const levels = (used: number) => limits.merge(snapshot({ usedPercent: used })).map((a) => a.level);
    expect(levels(100)).toEqual(["reached"]);
    expect(levels(100)).toEqual([]);
    expect(levels(3)).toEqual([]);
    expect(levels(91)).toEqual(["nearly"]);
  });

  it("reads for the user: window names, a named limit, credits", () => {
    expect([windowName(300), windowName(10080), windowName(1440), windowName(45), windowName(null)]).toEqual([
      "5-hour window",
      "weekly window",
      "1-day window",
      "45-minute window",
      "window",
    ]);
    const limits = new AccountLimits(() => 0);
    limits.merge({
      limitId: "codex_other",
      limitName: "gpt-5.2-codex-sonic",
      primary: { usedPercent: 12, windowDurationMins: 60, resetsAt: 4102444800 },
      secondary: null,
      credits: { hasCredits: false, unlimited: true, balance: null },
    });
    expect(statusLines(limits.known(), 0)).toEqual([
      "- Usage limits (gpt-5.2-codex-sonic): 1-hour window 12% used (resets 2100-01-01 00:00 UTC)",
      "- Credits (gpt-5.2-codex-sonic): unlimited",
    ]);
    expect(statusLines(limits.known(), 4102444800 * 1000)[0]).toContain(
      "(reset at 2100-01-01 00:00 UTC: figure from before)",
    );
  });
});
