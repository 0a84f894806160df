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
  /**
   * The user's `[sandbox_workspace_write]` (extra writable roots, network access, tmp exclusions):
   * what a workspace-write mode keeps when the user switches to it (config.toml, or the sandbox the
   * thread opened with). Never sent as such: the modes build `sandboxPolicy` from it.
   */
  workspaceWrite?: WorkspaceWrite;
  /**
   * The approvals and sandbox the thread opened with, as Codex reported them (the user's
   * config.toml, or what a resumed thread last ran with). When no mode preset describes them they
   * are the session's "Custom" mode, which restores them.
   */
  openedWith?: OpenedPolicy;
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
  /**
   * Not Codex's: after each completed turn, ask the model for the message the user is likely to
   * send next (features/prompt-suggestions.ts). Off unless the user turns it on (a config option):
   * each costs a model call. Never sent to Codex as such.
   */
  promptSuggestions?: boolean;
};

type JsonObject = { [key: string]: JsonValue };

export type WorkspaceWrite = Omit<Extract<v2.SandboxPolicy, { type: "workspaceWrite" }>, "type">;

export type OpenedPolicy = {
  approvalPolicy: v2.AskForApproval;
  approvalsReviewer: v2.ApprovalsReviewer;
  sandboxPolicy: v2.SandboxPolicy;
};

/** The user's workspace-write settings in a workspace-write policy. */
export function workspaceWriteOf(p: Extract<v2.SandboxPolicy, { type: "workspaceWrite" }>): WorkspaceWrite {
  return {
    writableRoots: p.writableRoots,
    networkAccess: p.networkAccess,
    excludeTmpdirEnvVar: p.excludeTmpdirEnvVar,
    excludeSlashTmp: p.excludeSlashTmp,
  };
}

/** The sandbox mode (thread/start's kind) of a sandbox policy; an external sandbox has none of ours. */
export function sandboxModeOf(policy: v2.SandboxPolicy | undefined): v2.SandboxMode | undefined {
  switch (policy?.type) {
    case "readOnly":
      return "read-only";
    case "workspaceWrite":
      return "workspace-write";
    case "dangerFullAccess":
      return "danger-full-access";
    default:
      return undefined;
  }
}

/** Config with `servers` added to its `mcp_servers` (keeping those already there). */
export function withMcpServers(config: ThreadSettings["config"], servers: JsonObject): JsonObject {
  const current = config?.mcp_servers;
  const existing = current && typeof current === "object" && !Array.isArray(current) ? current : {};
  return { ...config, mcp_servers: { ...existing, ...servers } };
}

type ThreadAnswer = Pick<v2.ThreadResumeResponse, "approvalPolicy" | "approvalsReviewer" | "sandbox" | "serviceTier"> &
  Partial<Pick<v2.ThreadResumeResponse, "collaborationMode">>;

/**
 * What a thread runs with, as Codex answered thread/start (the user's config.toml for that cwd,
 * when the request named none of these) or thread/resume (what the thread last ran with): the
 * approval policy, sandbox and reviewer, plan mode, the speed. A session opened so starts as the
 * user configured it, and one loaded or resumed by a restarted agent comes back as it was.
 */
export function settingsFromThread(r: ThreadAnswer): Partial<ThreadSettings> {
  // (Read defensively: a newer Codex may leave these out.)
  const sandbox = sandboxModeOf(r.sandbox);
  return {
    ...(r.approvalPolicy ? { approvalPolicy: r.approvalPolicy } : {}),
    ...(r.approvalsReviewer ? { approvalsReviewer: r.approvalsReviewer } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(r.sandbox?.type === "workspaceWrite" ? { workspaceWrite: workspaceWriteOf(r.sandbox) } : {}),
    ...(r.approvalPolicy && r.sandbox
      ? {
          openedWith: {
            approvalPolicy: r.approvalPolicy,
            approvalsReviewer: r.approvalsReviewer ?? "user",
            sandboxPolicy: r.sandbox,
          },
        }
      : {}),
    ...(r.collaborationMode && r.collaborationMode.mode !== "default"
      ? { collaborationMode: r.collaborationMode.mode }
      : {}),
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

export type KeptTurnParams = Pick<
  v2.TurnStartParams,
  "model" | "effort" | "approvalPolicy" | "sandboxPolicy" | "approvalsReviewer" | "serviceTier"
>;

/**
 * The turn/start fields Codex keeps for the turns after (model, effort, approvals, sandbox,
 * reviewer, speed). A session sends them when they differ from what this codex child last got
 * (`previous`): applied again unchanged, they cost Codex 1.5-3 ms before each turn's model request.
 * A speed given before and unset now (the new model has no such tier) is cleared, not kept.
 */
export function keptTurnParams(s: ThreadSettings, previous?: KeptTurnParams): KeptTurnParams {
  const tier = s.serviceTier
    ? { serviceTier: s.serviceTier === "default" ? null : s.serviceTier }
    : previous?.serviceTier !== undefined
      ? { serviceTier: null }
      : {};
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
  return s.collaborationMode && s.model
    ? {
        collaborationMode: {
          mode: s.collaborationMode,
          settings: { model: s.model, reasoning_effort: s.effort ?? null, developer_instructions: null },
        },
      }
    : {};
}
