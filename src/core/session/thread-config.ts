// The thread/start and thread/resume fields a session's settings give, and its per-thread config.
import type { JsonValue, ModeKind, v2 } from "../../codex/index.js";

/** What `thread/start` and `thread/resume` both take; modes and config options edit it. */
export type ThreadSettings = {
  cwd: string;
  approvalPolicy?: v2.AskForApproval;
  sandbox?: v2.SandboxMode;
  /** Who answers Codex's approval requests (auto-review mode: Codex's reviewer). */
  approvalsReviewer?: v2.ApprovalsReviewer;
  /** Sent with every `turn/start` (the sandbox of a mode chosen after the thread started). */
  sandboxPolicy?: v2.SandboxPolicy;
  model?: string;
  /** Codex's ReasoningEffort (a string in its schema). */
  effort?: string;
  developerInstructions?: string;
  /** Replaces Codex's base instructions for the thread (a client's system prompt in override mode). */
  baseInstructions?: string;
  /** The service tier chosen for the next turns ("default": standard speed); unset, the model's default. */
  serviceTier?: string;
  /** Codex's collaboration mode for the next turns ("plan": the model plans and asks, changes nothing). */
  collaborationMode?: ModeKind;
  /** Per-thread config overrides (Codex's config.toml keys). */
  config?: { [key: string]: JsonValue };
  /**
   * Ask Codex for the model's raw response items (thread/start only; Codex ignores it on resume).
   * The file tools need them to show a native apply_patch that Codex rejected, which has no item.
   */
  rawEvents?: boolean;
};

type JsonObject = { [key: string]: JsonValue };

/** Config with `servers` added to its `mcp_servers` (keeping those already there). */
export function withMcpServers(config: ThreadSettings["config"], servers: JsonObject): JsonObject {
  const current = config?.mcp_servers;
  const existing = current && typeof current === "object" && !Array.isArray(current) ? current : {};
  return { ...config, mcp_servers: { ...existing, ...servers } };
}

/**
 * What a resumed thread was last run with, as Codex restores it from its history (thread/resume's
 * answer when the request named none of these): the mode's approval policy, sandbox and reviewer,
 * plan mode, the speed. A session loaded or resumed by a restarted agent comes back as it was.
 */
export function settingsFromResume(r: Pick<v2.ThreadResumeResponse, "approvalPolicy" | "approvalsReviewer" | "sandbox" | "collaborationMode" | "serviceTier">): Partial<ThreadSettings> {
  const sandbox: v2.SandboxMode | undefined =
    // (Read defensively: the answer is not checked by a schema, and a newer Codex may leave it out.)
    r.sandbox?.type === "readOnly" ? "read-only" : r.sandbox?.type === "workspaceWrite" ? "workspace-write" : r.sandbox?.type === "dangerFullAccess" ? "danger-full-access" : undefined;
  return {
    ...(r.approvalPolicy ? { approvalPolicy: r.approvalPolicy } : {}),
    ...(r.approvalsReviewer ? { approvalsReviewer: r.approvalsReviewer } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(r.collaborationMode && r.collaborationMode.mode !== "default" ? { collaborationMode: r.collaborationMode.mode } : {}),
    ...(r.serviceTier ? { serviceTier: r.serviceTier } : {}),
  };
}

/** The server names already in a config's `mcp_servers`. */
export function mcpServerNames(config: ThreadSettings["config"]): Set<string> {
  const current = config?.mcp_servers;
  return new Set(current && typeof current === "object" && !Array.isArray(current) ? Object.keys(current) : []);
}

/** What thread/start, thread/resume and thread/fork all take from the settings. */
function commonParams(s: ThreadSettings) {
  return {
    cwd: s.cwd,
    ...(s.approvalPolicy ? { approvalPolicy: s.approvalPolicy } : {}),
    ...(s.sandbox ? { sandbox: s.sandbox } : {}),
    ...(s.approvalsReviewer ? { approvalsReviewer: s.approvalsReviewer } : {}),
    ...(s.model ? { model: s.model } : {}),
    ...(s.developerInstructions ? { developerInstructions: s.developerInstructions } : {}),
    ...(s.baseInstructions ? { baseInstructions: s.baseInstructions } : {}),
    ...(s.config ? { config: s.config } : {}),
  };
}

/** Fields of `thread/start` / `thread/resume` derived from the session's settings. */
export function threadParams(s: ThreadSettings): v2.ThreadStartParams & Omit<v2.ThreadResumeParams, "threadId"> {
  return { ...commonParams(s), ...(s.rawEvents ? { experimentalRawEvents: true } : {}) };
}

/** Fields of `thread/fork` from the settings (the fork runs with this session's settings, not the source's). */
export function forkParams(s: ThreadSettings): Omit<v2.ThreadForkParams, "threadId"> {
  return commonParams(s);
}

export type KeptTurnParams = Pick<v2.TurnStartParams, "model" | "effort" | "approvalPolicy" | "sandboxPolicy" | "approvalsReviewer" | "serviceTier">;

/**
 * The turn/start fields Codex keeps for the turns after (model, effort, approvals, sandbox,
 * reviewer, speed). A session sends them when they differ from what this codex child last got
 * (`previous`): applied again unchanged, they cost Codex 1.5-3 ms before each turn's model request.
 * A speed given before and unset now (the new model has no such tier) is cleared, not kept.
 */
export function keptTurnParams(s: ThreadSettings, previous?: KeptTurnParams): KeptTurnParams {
  const tier = s.serviceTier ? { serviceTier: s.serviceTier === "default" ? null : s.serviceTier } : previous?.serviceTier !== undefined ? { serviceTier: null } : {};
  return {
    ...(s.model ? { model: s.model } : {}),
    ...(s.effort ? { effort: s.effort } : {}),
    ...(s.approvalPolicy ? { approvalPolicy: s.approvalPolicy } : {}),
    ...(s.sandboxPolicy ? { sandboxPolicy: s.sandboxPolicy } : {}),
    ...(s.approvalsReviewer ? { approvalsReviewer: s.approvalsReviewer } : {}),
    ...tier,
  };
}

/** The collaboration mode, with every turn while it is set (Codex does not say it keeps it). */
export function collaborationParams(s: ThreadSettings): Pick<v2.TurnStartParams, "collaborationMode"> {
  // null instructions: Codex's own for the mode. It overrides model and effort, so both go along.
  return s.collaborationMode && s.model ? { collaborationMode: { mode: s.collaborationMode, settings: { model: s.model, reasoning_effort: s.effort ?? null, developer_instructions: null } } } : {};
}
