// Extension points of a session, so each capability (file tools, modes and config
// options, the client's MCP servers, titles, ...) lives in its own module and the
// agent's core stays small. Features run in registration order.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { CodexHost, CodexServerAnswer, CodexServerRequest } from "../codex/index.js";
import type { Logger } from "../log/index.js";
import type { AcpSession, ThreadSettings } from "./session/session.js";

export type SessionOpenKind = "new" | "load" | "resume";

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
};

export interface SessionFeature {
  readonly name: string;
  /** What initialize advertises for this feature under `agentCapabilities.sessionCapabilities` (merged by the core). */
  sessionCapabilities?(): Record<string, unknown>;
  /** Registers the ACP requests this feature answers (session/set_mode, ...) on the agent. */
  install?(app: acp.AgentApp, agent: AgentHandle): void;
  /** Answers a prompt itself (a slash command); undefined lets it go to the model. */
  handlePrompt?(session: AcpSession, prompt: acp.ContentBlock[], agent: AgentHandle): Promise<acp.PromptResponse> | undefined;
  /** After `initialize` was answered (the client's capabilities are known): warm up what sessions will need. */
  initialized?(services: AgentServices): void;
  /** Before the thread is started or resumed: amend its settings (config, instructions, policy). */
  prepare?(opening: SessionOpening, services: AgentServices): void | Promise<void>;
  /** After the session exists: hang listeners on it, and add fields to the response (modes, configOptions). */
  attach?(session: AcpSession, opening: SessionOpening, response: Record<string, unknown>, services: AgentServices): void | Promise<void>;
  /**
   * Adds this feature's fields to a load or resume answered from the session as it is open now (a
   * thread with no turn yet, which Codex cannot resume): what `attach` would have added.
   */
  describe?(session: AcpSession, response: Record<string, unknown>): void;
  /** When the session closes. */
  detach?(session: AcpSession, services: AgentServices): void | Promise<void>;
  /** When opening failed after `prepare` (the thread never started): release what prepare took. */
  abandon?(opening: SessionOpening, services: AgentServices): void | Promise<void>;
  /** The Codex server requests this feature answers (approvals, questions, elicitations), by route (request-routes.ts). */
  readonly requestRoutes?: readonly RequestRoute[];
}


/** One Codex server request route a feature claims, with its answer (made by `route`, request-routes.ts). */
export type RequestRoute = {
  readonly key: string;
  answer(session: AcpSession, request: CodexServerRequest, services: AgentServices): Promise<CodexServerAnswer> | undefined;
};

/** What the agent shares with its features. */
export type AgentServices = {
  host: CodexHost;
  log: Logger;
  /** The connected client, for requests such as session/request_permission and fs/*. */
  client(): acp.AgentContext;
  clientCapabilities(): acp.ClientCapabilities;
  sessions: Map<string, AcpSession>;
};
