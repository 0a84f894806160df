// Turns the app-server notifications of one thread into ACP session updates.
// Stateful per session: it remembers which items were announced and how much of each message
// was streamed, so nothing is shown twice and nothing is dropped. The switch is exhaustive over
// Codex's notification methods (the ones with no ACP counterpart are listed as such), so a method
// added by a newer Codex fails `tsc` here; at run time the codex client hands on only the methods
// this build knows (and reports the others once). Params are typed where the client checked them.
import type { PlanEntry } from "@agentclientprotocol/sdk/unstable";
import type { SessionUpdate } from "./view.js";
import type { CodexNotification, v2 } from "../codex/index.js";
import { OUTPUT_TAIL_CHARS, cutOutput } from "./commands.js";
import { snapshotFileChange } from "./file-changes.js";
import { randomUUID } from "node:crypto";
import { blockedToolCall } from "./hooks.js";
import { completedItemDisplay, goalStatusLabel, noticeUpdate, planDocument, type ClientDisplay } from "./display.js";
import { itemText, moderatedMessage } from "./item-text.js";
import { asToolItem, completedItemUpdate, describeItem, type ItemContext } from "./items.js";
import { NativePatchWatcher } from "./native-patch.js";
import { terminalOutput, terminalOutputDelta } from "./terminal.js";
import { textContent, type FileBefore, type Item, type TextFiles, type ToolCallView } from "./view.js";
import { textTail } from "../text/index.js";

/** Streamed command output is re-sent at most this often (the final update always has it all). */
const OUTPUT_UPDATE_INTERVAL_MS = 100;

type OutputState = { tail: string; total: number; lastSent: number };

export type TranslatorOptions = {
  now?: () => number;
  /** The session's working directory (relative paths of a patch are resolved against it). */
  cwd?: () => string | undefined;
  /** How files are read for full diffs of Codex's own patches (none: hunks only). */
  files?: TextFiles;
  /** Told once per notification method or item kind this build does not know. */
  onUnknown?: (what: string) => void;
  /** What the client can show (terminal cards, notices, compactions, plan documents). */
  display?: () => ClientDisplay;
};

export class ThreadEventTranslator {
  private readonly announced = new Set<string>();
  private readonly streamed = new Map<string, number>();
  private readonly views = new Map<string, ToolCallView>();
  private readonly before = new Map<string, FileBefore>();
  private readonly outputs = new Map<string, OutputState>();
  /** Compactions shown as running (compaction_update in_progress) and not yet completed. */
  private readonly compacting = new Set<string>();
  /** Proposed plans streaming as documents: the text so far, what was last sent, and when. */
  private readonly plans = new Map<string, { text: string; sent: string; lastSent: number }>();
  /** Commands whose output has streamed as chunks, to a terminal or as deltas (their end need not repeat it). */
  /** Characters of each command's output streamed to a client that appends them (a terminal card, delta chunks). */
  private readonly terminalStreamed = new Map<string, number>();
  private readonly nativePatches = new NativePatchWatcher();
  private readonly unknown = new Set<string>();
  /** The thread's goal as Codex last said (kept across turns: only a change of it is shown). */
  private goal: { objective: string; status: v2.ThreadGoalStatus } | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: TranslatorOptions = {}) {
    this.now = opts.now ?? Date.now;
  }

  /** Forgets per-turn state (call when a new turn starts). */
  reset(): void {
    this.announced.clear();
    this.streamed.clear();
    this.views.clear();
    this.before.clear();
    this.outputs.clear();
    this.plans.clear();
    this.compacting.clear();
    this.terminalStreamed.clear();
    this.nativePatches.clear();
  }

  /** How an announced tool item looked (for permission requests on it). */
  viewOf(itemId: string): ToolCallView | undefined {
    return this.views.get(itemId);
  }

  translate(n: CodexNotification): SessionUpdate[] {
    switch (n.method) {
      case "item/agentMessage/delta":
        return this.textDelta(n.params.itemId, n.params.delta, "agent_message_chunk");
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
        return this.textDelta(n.params.itemId, n.params.delta, "agent_thought_chunk");
      case "item/reasoning/summaryPartAdded":
        // A new summary part: separate it from the previous one.
        return this.streamed.get(n.params.itemId) ? this.textDelta(n.params.itemId, "\n\n", "agent_thought_chunk") : [];
      case "item/commandExecution/outputDelta":
        return this.outputDelta(n.params.itemId, n.params.delta);
      case "item/started":
        return this.itemStarted(n.params.item);
      case "item/completed":
        return this.itemCompleted(n.params.item);
      case "thread/tokenUsage/updated":
        return usage(n.params.tokenUsage);
      case "turn/plan/updated":
        return [plan(n.params.plan)];
      case "rawResponseItem/completed":
        return this.nativePatches.onRawItem(n.params.item, (id) => this.announced.has(id), this.opts.cwd?.());
      case "error":
        // A retried error is worth a line in the chat; a final one fails the prompt instead.
        return n.params.willRetry && n.params.error.message
          ? [this.notice("info", `${n.params.error.message} (retrying…)`)]
          : [];
      case "guardianWarning":
        // What Codex's auto-reviewer decided (auto-review mode): the user should know.
        return n.params.message ? [this.notice("warning", n.params.message)] : [];
      case "model/rerouted":
        return [this.notice("info", `Codex switched this turn to the model ${n.params.toModel}.`)];
      case "item/plan/delta":
        return this.planDelta(n.params.itemId, n.params.delta);
      case "turn/completed":
        return this.unfinishedCompactions(n.params.turn.status);
      case "hook/completed":
        return blockedToolCall(n.params.run);
      case "thread/goal/updated":
        return this.goalUpdated(n.params);
      case "thread/goal/cleared":
        // Only a client clears a goal (`/goal clear` says so itself).
        this.goal = undefined;
        return [];
      // Thread and turn lifecycle: the session and its features follow these, not the client.
      case "thread/started":
      case "thread/status/changed":
      case "thread/readState/changed":
      case "thread/archived":
      case "thread/deleted":
      case "thread/unarchived":
      case "thread/closed":
      case "thread/reverted":
      case "thread/name/updated":
      case "thread/section/changed":
      case "thread/attachment/updated":
      case "thread/prediction/updated":
      case "thread/queue/changed":
      case "thread/project/updated":
      case "thread/environment/connected":
      case "thread/environment/disconnected":
      case "thread/settings/updated":
      case "thread/compacted":
      case "turn/started":
      case "turn/diff/updated":
      case "turn/moderationMetadata":
      case "serverRequest/resolved":
      case "rawResponse/completed":
      // Shown through the items they belong to (or not shown in ACP at all).
      case "hook/started":
      case "item/autoApprovalReview/started":
      case "item/autoApprovalReview/completed":
      case "autoApprovalReview/strictReviewRequired":
      case "item/commandExecution/terminalInteraction":
      case "item/fileChange/outputDelta":
      case "item/fileChange/patchUpdated":
      case "item/mcpToolCall/progress":
      case "model/verification":
      case "model/safetyBuffering/updated":
      // Codex's warnings: src/features/codex-warnings.ts (a thread's warning often repeats a global one,
      // and a deprecation names no thread).
      case "configWarning":
      case "deprecationNotice":
      case "warning":
      // Not about a conversation: account, servers, processes, realtime audio, other clients.
      case "skills/changed":
      case "project/changed":
      case "command/exec/outputDelta":
      case "process/outputDelta":
      case "process/exited":
      case "mcpServer/oauthLogin/completed":
      case "mcpServer/startupStatus/updated":
      case "mcpServer/event/stream/notification":
      case "account/updated":
      case "account/gatewayOAuth/changed":
      case "account/rateLimits/updated": // names no thread: features/rate-limits hears it from the host
      case "account/login/completed":
      case "app/list/updated":
      case "remoteControl/status/changed":
      case "externalAgentConfig/import/progress":
      case "externalAgentConfig/import/completed":
      case "fs/changed":
      case "modelProvider/authRecoveryStarted":
      case "modelProvider/authRecoveryCompleted":
      case "fuzzyFileSearch/sessionUpdated":
      case "fuzzyFileSearch/sessionCompleted":
      case "thread/realtime/started":
      case "thread/realtime/itemAdded":
      case "thread/realtime/item/started":
      case "thread/realtime/item/transcript/delta":
      case "thread/realtime/item/completed":
      case "thread/realtime/transcript/delta":
      case "thread/realtime/transcript/done":
      case "thread/realtime/outputAudio/delta":
      case "thread/realtime/sdp":
      case "thread/realtime/error":
      case "thread/realtime/closed":
      case "thread/search/partial":
      case "windows/worldWritableWarning":
      case "windowsSandbox/setupCompleted":
        return [];
      default:
        return this.unknownMethod(n);
    }
  }

  private context(): ItemContext {
    const cwd = this.opts.cwd?.();
    return {
      ...(this.opts.files ? { files: this.opts.files } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      ...(this.display().terminalOutput ? { terminalOutput: true } : {}),
      ...(this.display().terminalOutputDelta ? { terminalOutputDelta: true } : {}),
      onUnknown: (kind) => this.reportOnce(`item kind ${kind}`),
    };
  }

  private display(): ClientDisplay {
    return this.opts.display?.() ?? {};
  }

  private notice(severity: "info" | "warning", title: string, description?: string | null): SessionUpdate {
    return noticeUpdate(this.display(), severity, title, description, `notice-${randomUUID()}`);
  }

  /**
   * A goal whose objective or state Codex changed in a turn (the model's update_goal, a budget or
   * usage limit): a notice. A change a client made (no turn: `/goal` answers for itself) and
   * Codex's accounting of tokens and time are not shown.
   */
  private goalUpdated(p: v2.ThreadGoalUpdatedNotification): SessionUpdate[] {
    const before = this.goal;
    const { objective, status } = p.goal;
    this.goal = { objective, status };
    if (p.turnId === null || (before?.status === status && before.objective === objective)) return [];
    return [
      this.notice(
        status === "blocked" || status.endsWith("Limited") ? "warning" : "info",
        `Goal ${goalStatusLabel(status)}`,
        objective,
      ),
    ];
  }

  /** A proposed plan as it streams (plan documents only; without them it is agent text once complete). */
  private planDelta(itemId: string, delta: string): SessionUpdate[] {
    if (!this.display().planUpdates || !delta) return [];
    const state = this.plans.get(itemId) ?? { text: "", sent: "", lastSent: 0 };
    this.plans.set(itemId, state);
    state.text += delta;
    const now = this.now();
    if (state.lastSent !== 0 && now - state.lastSent < OUTPUT_UPDATE_INTERVAL_MS) return [];
    state.lastSent = now;
    state.sent = state.text;
    return [planDocument(itemId, state.text)];
  }

  private reportOnce(what: string): void {
    if (this.unknown.has(what)) return;
    this.unknown.add(what);
    this.opts.onUnknown?.(what);
  }

  /** Compile time: `n` is `never` once every method has a case. Run time: not reached (the client drops methods it does not know). */
  private unknownMethod(n: never): SessionUpdate[] {
    const method: unknown = Reflect.get(Object(n), "method");
    this.reportOnce(`notification ${String(method)}`);
    return [];
  }

  private textDelta(
    itemId: string,
    delta: string,
    kind: "agent_message_chunk" | "agent_thought_chunk",
  ): SessionUpdate[] {
    if (delta.length === 0) return [];
    this.streamed.set(itemId, (this.streamed.get(itemId) ?? 0) + delta.length);
    return [{ sessionUpdate: kind, content: { type: "text", text: delta }, messageId: itemId }];
  }

  private outputDelta(itemId: string, delta: string): SessionUpdate[] {
    if (!this.announced.has(itemId)) return [];
    const terminal = this.views.get(itemId)?.content?.[0]?.type === "terminal";
    if (terminal || this.display().terminalOutputDelta) {
      // The client appends every chunk once, in order (a terminal, or delta chunks); nothing is kept here.
      if (!delta) return [];
      this.terminalStreamed.set(itemId, (this.terminalStreamed.get(itemId) ?? 0) + delta.length);
      return [terminal ? terminalOutput(itemId, delta) : terminalOutputDelta(itemId, delta)];
    }
    const state = this.outputs.get(itemId) ?? { tail: "", total: 0, lastSent: 0 };
    this.outputs.set(itemId, state);
    state.total += delta.length;
    state.tail = textTail(state.tail + delta, OUTPUT_TAIL_CHARS);
    const now = this.now();
    if (state.lastSent !== 0 && now - state.lastSent < OUTPUT_UPDATE_INTERVAL_MS) return [];
    state.lastSent = now;
    const cut = state.total - state.tail.length;
    const shown = cut > 0 ? cutOutput(cut, state.tail) : state.tail;
    return [
      { sessionUpdate: "tool_call_update", toolCallId: itemId, status: "in_progress", content: [textContent(shown)] },
    ];
  }

  private itemStarted(started: Item): SessionUpdate[] {
    if (started.type === "contextCompaction" && this.display().compaction) {
      this.compacting.add(started.id);
      return [{ sessionUpdate: "compaction_update", compactionId: started.id, status: "in_progress" }];
    }
    const ctx = this.context();
    const item = asToolItem(started, ctx);
    if (!item || this.announced.has(item.id)) return [];
    this.announced.add(item.id);
    if (item.type === "fileChange" && this.opts.files)
      this.before.set(item.id, snapshotFileChange(item, this.opts.files));
    const view = describeItem(item, this.before.get(item.id), ctx);
    this.views.set(item.id, view);
    return [{ sessionUpdate: "tool_call", toolCallId: item.id, status: "in_progress", ...view }];
  }

  /**
   * A turn that ended (interrupted, failed) before its compaction did: the client must not show it
   * running. Also called by the session when a turn ends without Codex saying so (abandoned after a
   * cancel, or its codex died).
   */
  unfinishedCompactions(turnStatus: string): SessionUpdate[] {
    const status = turnStatus === "interrupted" ? "cancelled" : turnStatus === "failed" ? "failed" : "completed";
    const open = [...this.compacting];
    this.compacting.clear();
    return open.map((compactionId) => ({ sessionUpdate: "compaction_update", compactionId, status }));
  }

  private itemCompleted(completed: Item): SessionUpdate[] {
    if (completed.type === "contextCompaction") this.compacting.delete(completed.id);
    const ctx = this.context();
    const shown = completedItemDisplay(completed, this.display());
    if (shown) {
      const streamed = this.plans.get(completed.id);
      this.plans.delete(completed.id);
      // The last streamed snapshot was already the whole plan: nothing new to send.
      if (completed.type === "plan" && streamed?.sent === completed.text) return [];
      return shown;
    }
    if (completed.type === "agentMessage" && completed.moderation?.display) {
      const streamed = this.streamed.get(completed.id) ?? 0;
      this.streamed.set(completed.id, Math.max(streamed, completed.text.length));
      return moderatedMessage(completed, this.display(), streamed) ?? [];
    }
    const text = itemText(completed);
    if (text) return this.unstreamedText(completed.id, text.text, text.kind);
    const item = asToolItem(completed, ctx);
    if (!item) return [];
    const updates: SessionUpdate[] = this.announced.has(item.id) ? [] : this.itemStarted(item);
    const streamed = this.terminalStreamed.get(item.id) ?? 0;
    this.terminalStreamed.delete(item.id);
    updates.push(completedItemUpdate(item, this.before.get(item.id), ctx, streamed));
    this.outputs.delete(item.id);
    this.before.delete(item.id);
    return updates;
  }

  /** A message that completed without (all of) its deltas: show what the client has not seen. */
  private unstreamedText(
    itemId: string,
    text: string,
    kind: "agent_message_chunk" | "agent_thought_chunk",
  ): SessionUpdate[] {
    const seen = this.streamed.get(itemId) ?? 0;
    if (text.length <= seen) return [];
    this.streamed.set(itemId, text.length);
    return [{ sessionUpdate: kind, content: { type: "text", text: text.slice(seen) }, messageId: itemId }];
  }
}

function usage(u: v2.ThreadTokenUsage): SessionUpdate[] {
  if (typeof u.modelContextWindow !== "number") return [];
  return [{ sessionUpdate: "usage_update", used: u.last.totalTokens, size: u.modelContextWindow }];
}

function plan(steps: readonly v2.TurnPlanStep[]): SessionUpdate {
  const entries: PlanEntry[] = steps.map((s) => ({
    content: s.step,
    priority: "medium",
    status: s.status === "completed" ? "completed" : s.status === "inProgress" ? "in_progress" : "pending",
  }));
  return { sessionUpdate: "plan", entries };
}
