// Issue 28 (A): the account's usage limits. The fake model sends the rate-limit headers the ChatGPT
// backend sends; the real codex turns them into `account/rateLimits/updated`, and the adapter shows
// them in /status, warns once per window when one is nearly used up or used up, and carries the
// latest figures in usage_update's `_meta`.
import { afterEach, describe, expect, it } from "vitest";
import { messageText, rawUpdatesOf, startAdapter, type Adapter } from "../support/adapter.js";
import { rateLimitHeaders, textResponse, type ScriptedResponse } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

/** 2100-01-01 00:00 UTC: a reset time that is always in the future. */
const RESET_AT = 4102444800;
const RATE_LIMITS_META = "codex-cli-acp/rateLimits";

function withLimits(text: string, primaryUsed: number): ScriptedResponse {
  return textResponse(text, {
    headers: rateLimitHeaders({
      primary: { usedPercent: primaryUsed, windowMinutes: 300, resetAt: RESET_AT },
      secondary: { usedPercent: 40, windowMinutes: 10080, resetAt: RESET_AT + 3600 },
      credits: { hasCredits: true, unlimited: false, balance: "12.50" },
    }),
  });
}

const usageNotices = (updates: Array<Record<string, unknown>>) =>
  updates.filter((u) => u.sessionUpdate === "notice" && /usage limit/i.test(String(u.title)));

describe("usage limits", () => {
  it("reach /status, a notice once per window and level, and usage_update's _meta", async () => {
    adapter = await startAdapter({
      responses: [
        textResponse("no limits yet"),
        withLimits("one", 92),
        withLimits("two", 93),
        withLimits("three", 100),
        withLimits("four", 100),
      ],
    });
    await adapter.initialize({ session: { notices: {} } });
    const { sessionId } = await adapter.newSession();

    // Nothing reported yet (an API key cannot read them from Codex's account endpoint).
    await adapter.prompt(sessionId, "/status");
    expect(messageText(adapter.updatesOf(sessionId))).toContain("- Usage limits: not reported by Codex yet");
    await adapter.prompt(sessionId, "hello");
    const plain = rawUpdatesOf(adapter, sessionId).filter((u) => u.sessionUpdate === "usage_update");
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.every((u) => u._meta === undefined)).toBe(true);

    await adapter.prompt(sessionId, "first");
    await adapter.prompt(sessionId, "second");
    let notices = usageNotices(rawUpdatesOf(adapter, sessionId));
    expect(notices).toEqual([
      {
        sessionUpdate: "notice",
        severity: "warning",
        title: "Codex usage limit nearly reached: 92% of the 5-hour window used",
        description: expect.stringContaining("2100-01-01 00:00 UTC"),
      },
    ]);

    await adapter.prompt(sessionId, "third");
    await adapter.prompt(sessionId, "fourth");
    notices = usageNotices(rawUpdatesOf(adapter, sessionId));
    expect(notices.map((n) => n.title)).toEqual([
      "Codex usage limit nearly reached: 92% of the 5-hour window used",
      "Codex usage limit reached: 100% of the 5-hour window used",
    ]);

    const last = rawUpdatesOf(adapter, sessionId)
      .filter((u) => u.sessionUpdate === "usage_update")
      .at(-1);
    expect(last?._meta).toEqual({
      [RATE_LIMITS_META]: {
        codex: {
          limitId: "codex",
          limitName: null,
          primary: { usedPercent: 100, windowDurationMins: 300, resetsAt: RESET_AT },
          secondary: { usedPercent: 40, windowDurationMins: 10080, resetsAt: RESET_AT + 3600 },
          credits: { hasCredits: true, unlimited: false, balance: "12.50" },
          planType: null,
          rateLimitReachedType: null,
        },
      },
    });

    await adapter.prompt(sessionId, "/status");
    const status = messageText(adapter.updatesOf(sessionId)).split("**Session status**").at(-1)!;
    expect(status).toContain(
      "- Usage limits: 5-hour window 100% used (resets 2100-01-01 00:00 UTC); weekly window 40% used (resets 2100-01-01 01:00 UTC)",
    );
    expect(status).toContain("- Credits: 12.50");
    expect(adapter.fake.requests).toHaveLength(5);
  });

  it("are the account's: another session sees them in /status and is not warned again", async () => {
    adapter = await startAdapter({ responses: [withLimits("one", 95), withLimits("two", 95)] });
    await adapter.initialize({ session: { notices: {} } });
    const first = (await adapter.newSession()).sessionId;
    const second = (await adapter.newSession()).sessionId;
    await adapter.prompt(first, "a");
    await adapter.prompt(second, "b");
    expect(usageNotices(rawUpdatesOf(adapter, first))).toHaveLength(1);
    expect(usageNotices(rawUpdatesOf(adapter, second))).toHaveLength(0);
    await adapter.prompt(second, "/status");
    expect(messageText(adapter.updatesOf(second))).toContain("- Usage limits: 5-hour window 95% used");
  });

  it("a client without notices gets the warning as a card of its own, never as answer text", async () => {
    adapter = await startAdapter({ responses: [withLimits("fine", 91)] });
    await adapter.initialize({ session: {} });
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "go");
    const updates = rawUpdatesOf(adapter, sessionId);
    expect(messageText(adapter.updatesOf(sessionId))).toBe("fine");
    expect(
      updates.filter((u) => u.sessionUpdate === "tool_call" && /usage limit nearly reached/.test(String(u.title))),
    ).toEqual([
      expect.objectContaining({
        kind: "other",
        status: "completed",
        title: "Warning: Codex usage limit nearly reached: 91% of the 5-hour window used",
      }),
    ]);
  });

  it("with a ChatGPT sign-in, /status reads them before any model answer, and warns there", async () => {
    adapter = await startAdapter({ chatgptSignIn: true });
    // The ChatGPT backend's answer (Codex's account/rateLimits/read asks GET /backend-api/wham/usage).
    adapter.fake.setAccountUsage({
      plan_type: "plus",
      rate_limit: {
        allowed: true,
        limit_reached: false,
        primary_window: {
          used_percent: 96,
          limit_window_seconds: 18000,
          reset_after_seconds: 3600,
          reset_at: 2000000000,
        },
        secondary_window: null,
      },
      credits: { has_credits: false, unlimited: false, balance: "0" },
    });
    await adapter.initialize({ session: { notices: {} } });
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "/status");
    expect(messageText(adapter.updatesOf(sessionId))).toContain(
      "- Usage limits: 5-hour window 96% used (resets 2033-05-18 03:33 UTC)",
    );
    expect(usageNotices(rawUpdatesOf(adapter, sessionId)).map((n) => n.title)).toEqual([
      "Codex usage limit nearly reached: 96% of the 5-hour window used",
    ]);
    expect(adapter.fake.requests).toHaveLength(0);
  });
});
