// Features' `_meta` entries on a session's usage_update (a feature adds, e.g., its rate-limit or
// cost figures): asked once per token-usage update, merged, a failing feature left out.
import type { SessionUpdate } from "../../bridge/index.js";

/** Adds the `_meta` entries `listeners` give to the usage_updates among `updates` (in place). */
export function addUsageMeta(
  updates: SessionUpdate[],
  listeners: Iterable<() => Record<string, unknown> | undefined>,
  failed: (err: string) => void,
): void {
  let meta: Record<string, unknown> | undefined;
  for (const listener of listeners) {
    try {
      const part = listener();
      if (part) meta = { ...meta, ...part };
    } catch (err) {
      failed(err instanceof Error ? err.message : String(err));
    }
  }
  if (!meta) return;
  for (const [i, update] of updates.entries()) {
    if (update.sessionUpdate === "usage_update") updates[i] = { ...update, _meta: { ...update._meta, ...meta } };
  }
}
