// How the usage limits read for the user: `/status` lines and the warning notices.
import type { Credits, Limit, LimitAlert, LimitWindow } from "./limits.js";

/** "5-hour window", "weekly window", "30-minute window"; "window" when Codex did not say how long. */
export function windowName(minutes: number | null): string {
  if (minutes === null || minutes <= 0) return "window";
  if (minutes === 10080) return "weekly window";
  if (minutes % 1440 === 0) return `${minutes / 1440}-day window`;
  if (minutes % 60 === 0) return `${minutes / 60}-hour window`;
  return `${minutes}-minute window`;
}

/** A reset time (Unix seconds) as UTC, to the minute: the same for every reader. */
export function resetTime(resetsAt: number): string {
  return `${new Date(resetsAt * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function percent(n: number): string {
  return `${Math.round(n)}%`;
}

function windowText(window: LimitWindow, now: number): string {
  const reset =
    window.resetsAt === null
      ? ""
      : window.resetsAt * 1000 <= now
        ? ` (reset at ${resetTime(window.resetsAt)}: figure from before)`
        : ` (resets ${resetTime(window.resetsAt)})`;
  return `${windowName(window.windowDurationMins)} ${percent(window.usedPercent)} used${reset}`;
}

function creditsText(credits: Credits): string {
  if (credits.unlimited) return "unlimited";
  if (credits.balance !== null) return credits.balance;
  return credits.hasCredits ? "available" : "none";
}

/** The default limit is "Usage limits"; another one is named (Codex's name for it, or its id). */
function limitLabel(limit: Limit): string {
  if (limit.limitId === "codex" && !limit.limitName) return "Usage limits";
  return `Usage limits (${limit.limitName ?? limit.limitId})`;
}

/** `/status` lines: each limit's windows, then its credits. */
export function statusLines(limits: readonly Limit[], now: number): string[] {
  if (limits.length === 0)
    return [
      "- Usage limits: not reported by Codex yet (they come with the model's answers, or from a ChatGPT sign-in)",
    ];
  const lines: string[] = [];
  for (const limit of limits) {
    const windows = [limit.primary, limit.secondary]
      .filter((w): w is LimitWindow => w !== null)
      .map((w) => windowText(w, now));
    if (windows.length > 0) lines.push(`- ${limitLabel(limit)}: ${windows.join("; ")}`);
    if (limit.rateLimitReachedType)
      lines.push(`- ${limitLabel(limit)}: reached (${limit.rateLimitReachedType.replace(/_/g, " ")})`);
    if (limit.credits)
      lines.push(
        `- Credits${limit.limitId === "codex" ? "" : ` (${limit.limitName ?? limit.limitId})`}: ${creditsText(limit.credits)}`,
      );
  }
  return lines;
}

/** A warning's title and details: which window, how much of it is used, when it resets. */
export function alertText(alert: LimitAlert): { title: string; description: string } {
  const { limit, window } = alert;
  const which = `${percent(window.usedPercent)} of the ${windowName(window.windowDurationMins)} used`;
  const named = limit.limitId === "codex" && !limit.limitName ? "" : ` (${limit.limitName ?? limit.limitId})`;
  const title =
    alert.level === "reached"
      ? `Codex usage limit reached${named}: ${which}`
      : `Codex usage limit nearly reached${named}: ${which}`;
  const reset =
    window.resetsAt === null ? "Codex did not say when it resets." : `It resets ${resetTime(window.resetsAt)}.`;
  const what =
    alert.level === "reached" ? "Requests may be refused until then." : "Requests may be refused once it is used up.";
  return { title, description: `${reset} ${what}` };
}
