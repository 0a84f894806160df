// A turn's token usage for ACP's PromptResponse.usage: what Codex's running thread totals grew
// by during the turn (a turn with tool calls makes several model requests).
import type { Usage } from "@agentclientprotocol/sdk/unstable";
import type { v2 } from "../codex/index.js";

type Totals = v2.TokenUsageBreakdown;

/**
 * The usage between two of Codex's thread totals; undefined when nothing was used, or when the
 * totals before the turn are not known (a reopened thread's first turn: its totals hold the past).
 */
export function turnUsage(before: Totals | undefined, after: Totals | undefined): Usage | undefined {
  if (!after || !before) return undefined;
  const d = (key: keyof Totals): number => Math.max(0, after[key] - before[key]);
  const total = d("totalTokens");
  if (total === 0) return undefined;
  return {
    totalTokens: total,
    inputTokens: d("inputTokens"),
    outputTokens: d("outputTokens"),
    thoughtTokens: d("reasoningOutputTokens"),
    cachedReadTokens: d("cachedInputTokens"),
    cachedWriteTokens: d("cacheWriteInputTokens"),
  };
}
