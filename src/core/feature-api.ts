// Extension points of a session, so each capability (file tools, modes and config
// options, the client's MCP servers, titles, ...) lives in its own module and the
// agent's core stays small. Features run in registration order.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { CodexHost, CodexServerAnswer, CodexServerRequest } from "../codex/index.js";
import type { Logger } from "../log/index.js";
import type { AcpSession, ThreadSettings } from "./session/session.js";

export type SessionOpenKind = "new" | "load" | "resume";

/**
 * The legacy model selector (`models` in a session's answer, changed with `session/set_model`):
 * ACP's unstable SessionModelState, which the SDK's schema no longer has, still read by clients
 * without config options (acpx, older editors) and answered by both peer adapters.
 */
export type SessionModelState = {
  currentModelId: string;
  availableModels: Array<{ modelId: string; name: string; description?: string }>;
};

/**
 * A feature's part of a session's answer (session/new, load, resume, fork: the same fields in
 * ACP v1, plus the legacy `models`). Each field belongs to one feature: two features returning
 * one field is a defect the core reports when the session opens.
 */
export type SessionResponsePart = Partial<Omit<acp.NewSessionResponse, "sessionId">> & { models?: SessionModelState };

/** What a feature sees while a session opens. */
export type SessionOpening = {
  kind: SessionOpenKind;
  /** The client's request (session/new, session/load or session/resume params). */
  request: acp.NewSessionRequest | acp.LoadSessionRequest | acp.ResumeSessionRequest;
  /** A fork (session/fork): the new thread is Codex's copy of this one (`thread/fork`), opened like a new session. */
  forkOf?: string;
  /** Editable before `thread/start` / `thread/resume` is sent. */
  settings: ThreadSettings;
  /** A random key naming this session before Codex has given it a thread id. */
  key: string;
  /**
   * The Codex thread as stored (name, preview, model, effort...), read at most once per
   * opening and shared by every feature (each validates the fields it reads). openSession fills it in (from thread/start's
   * answer for a new session); a caller that already read the thread may set it first.
   */
  storedThread?: () => Promise<unknown>;
  /** Runs once every feature has accepted the opening, right before thread/start or thread/resume (a load starts reading history here). */
  beforeThread?: () => void;
};

/** What a feature's request handlers reach: the shared services and the open sessions. */
export type AgentHandle = {
  services: AgentServices;
  sessionOf(sessionId: string): AcpSession;
  /** The initialize response's `_meta`: extensions a feature offers (e.g. steering). */
  initializeMeta: Record<string, unknown>;
  /** Every feature's lines about this session for `/status` (statusLines), in feature order. */
  statusLines(session: AcpSession): Promise<string[]>;
};

export interface SessionFeature {
  readonly name: string;
  /** What initialize advertises for this feature under `agentCapabilities.sessionCapabilities` (merged by the core). */
  sessionCapabilities?(): Record<string, unknown>;
  /** What initialize advertises for this feature at the top of `agentCapabilities` (e.g. `providers`; merged by the core). */
  agentCapabilities?(): Omit<acp.AgentCapabilities, "sessionCapabilities">;
  /** This feature's lines (markdown list items) in `/status`, gathered by the core for whichever feature runs the command. */
  statusLines?(session: AcpSession, services: AgentServices): string[] | Promise<string[]>;
  /** Registers the ACP requests this feature answers (session/set_mode, ...) on the agent. */
  install?(app: acp.AgentApp, agent: AgentHandle): void;
  /** Answers a prompt itself (a slash command); undefined lets it go to the model. */
  handlePrompt?(
    session: AcpSession,
    prompt: acp.ContentBlock[],
    agent: AgentHandle,
  ): Promise<acp.PromptResponse> | undefined;
  /** After `initialize` was answered (the client's capabilities are known): warm up what sessions will need. */
  initialized?(services: AgentServices): void;
  /** Before the thread is started or resumed: amend its settings (config, instructions, policy). */
  prepare?(opening: SessionOpening, services: AgentServices): void | Promise<void>;
  /**
   * After the session exists: hang listeners on it, and return this feature's part of the
   * session/new (load, resume, fork) answer (modes, configOptions); the core merges the parts.
   */
  attach?(
    session: AcpSession,
    opening: SessionOpening,
    services: AgentServices,
  ): SessionResponsePart | void | Promise<SessionResponsePart | void>;
  /**
   * This feature's part of a load or resume answered from the session as it is open now (a
   * thread with no turn yet, which Codex cannot resume): what `attach` would have returned.
   */
  describe?(session: AcpSession): SessionResponsePart;
  /** When the session closes. */
  detach?(session: AcpSession, services: AgentServices): void | Promise<void>;
  /** When the session was deleted (session/delete; by its ACP id): forget what is kept of it. */
  sessionDeleted?(sessionId: string, services: AgentServices): void | Promise<void>;
  /** When opening failed after `prepare` (the thread never started): release what prepare took. */
  abandon?(opening: SessionOpening, services: AgentServices): void | Promise<void>;
  /** The Codex server requests this feature answers (approvals, questions, elicitations), by route (request-routes.ts). */
  readonly requestRoutes?: readonly RequestRoute[];
}

/** One Codex server request route a feature claims, with its answer (made by `route`, request-routes.ts). */
export type RequestRoute = {
  readonly key: string;
  /** `withdrawn` fires when Codex says the request was settled elsewhere (serverRequest/resolved): withdraw what asks the user. */
  answer(
    session: AcpSession,
    request: CodexServerRequest,
    services: AgentServices,
    withdrawn: AbortSignal,
  ): Promise<CodexServerAnswer> | undefined;
};

/** What the agent shares with its features. */
export type AgentServices = {
  host: CodexHost;
  log: Logger;
  /** The connected client, for requests such as session/request_permission and fs/*. */
  client(): acp.AgentContext;
  clientCapabilities(): acp.ClientCapabilities;
  /** The open sessions, by id (the core's table, read-only to the features). */
  sessions: ReadonlyMap<string, AcpSession>;
};

/** Merges the features' parts of a session answer; a field two features both return is a defect, not a silent override. */
export function mergeResponseParts(
  parts: ReadonlyArray<{ feature: string; part: SessionResponsePart | void }>,
): SessionResponsePart {
  const merged: Record<string, unknown> = {};
  const owner = new Map<string, string>();
  for (const { feature, part } of parts) {
    for (const [field, value] of Object.entries(part ?? {})) {
      if (value === undefined) continue;
      const earlier = owner.get(field);
      if (earlier) throw new Error(`features ${earlier} and ${feature} both answer the session's "${field}"`);
      owner.set(field, feature);
      merged[field] = value;
    }
  }
  return merged satisfies SessionResponsePart;
}
