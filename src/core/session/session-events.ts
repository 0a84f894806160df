// What a session tells the features that listen to it: its events (AcpSession.on) and its changes
// of mode and settings (AcpSession.onChange), with the change listeners' own registry.
import type { CodexNotification } from "../../codex/index.js";
import type { SessionMode } from "../../editor-files/access/index.js";
import type { ThreadSettings } from "./thread-config.js";
import type { ToolCallEnding } from "./tool-call-endings.js";

/** A session's mode: a preset (whose id is also the file tools' write rule), or "custom" (its thread's own policy, core/session/modes.ts). */
export type ModeId = SessionMode | "custom";

export type SessionChange = { type: "mode"; mode: ModeId } | { type: "settings"; settings: Readonly<ThreadSettings> };

/** The session's events a feature can listen to (AcpSession.on). */
export type SessionEvents = {
  notification: (n: CodexNotification) => void;
  cancel: () => void;
  beforeTurn: () => Promise<void>;
  sizes: () => Record<string, number>;
  /** `_meta` entries a feature adds to the session's `usage_update`s (asked once per token-usage update). */
  usageMeta: () => Record<string, unknown> | undefined;
  toolCallEnding: ToolCallEnding; // content a feature adds to a tool call's last update (tool-call-endings.ts)
};

/** The listeners of a session's changes; one that throws costs itself only (`onError` hears of it). */
export class ChangeListeners {
  private readonly listeners = new Set<(change: SessionChange) => void>();

  constructor(private readonly onError: (err: unknown) => void) {}

  /** Returns the unsubscribe. */
  add(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  emit(change: SessionChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
