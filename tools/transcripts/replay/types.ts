// What a replay takes and gives back (contracts/transcript-format.md).
import type { Readable, Writable } from "node:stream";

/** What the replay uses of the agent's process (a node ChildProcess, or execa's, which is one). */
export interface AgentProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly pid?: number | undefined;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: "close", listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

export interface StartAgentSpec {
  command: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface ReplayOptions {
  /** The agent under test; default: the header's agent.command. */
  agentCommand?: string[];
  /** Rewrite the transcript with the live messages (header kept) instead of failing on differences. */
  update?: boolean;
  /** Longest wait for expected agent messages before a client message is sent (default 30 s). */
  timeoutMs?: number;
  /** How long the agent may take to exit after its stdin is closed (default 5 s); longer is a failure. */
  exitTimeoutMs?: number;
  /** An agent still running `exitTimeoutMs` after EOF is stopped (SIGTERM, then SIGKILL), not failed. */
  stopAfterEof?: boolean;
  /** Extra environment for the agent (over process.env, the fake model's env and header.env). */
  env?: Record<string, string>;
  /** Starts the agent process (tests); default: execa, no shell, in its own process group. */
  startAgent?: (spec: StartAgentSpec) => AgentProcess;
}

/** "redacted": the recording left out what the agent had to be given (an editor's answer), so the run is not the recorded one. */
export type MismatchKind =
  | "difference"
  | "schema"
  | "unexpected"
  | "missing"
  | "timeout"
  | "agent-exit"
  | "setup"
  | "redacted";

export interface Mismatch {
  kind: MismatchKind;
  /** One line: what, where. */
  summary: string;
  /** Line of the recording the problem relates to, when there is one. */
  line?: number;
  /** For a difference: JSON path of the first differing field, and both values. */
  path?: string;
  expected?: unknown;
  actual?: unknown;
  /** Multi-line detail (diff, both normalised messages, violations). */
  detail?: string;
}

export interface ReplayResult {
  file: string;
  ok: boolean;
  mismatches: Mismatch[];
  /** Messages sent to the agent / received from it. */
  sent: number;
  received: number;
  /** True when --update rewrote the file. */
  updated: boolean;
  /** With --update, why the file was not rewritten. */
  notUpdated?: string;
  agentCommand: string[];
  agentExitCode: number | null;
  /** The end of the agent's stderr (for the report). */
  stderrTail: string;
  durationMs: number;
}
