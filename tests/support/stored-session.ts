// A stored Codex 0.169 session of any size, written straight into CODEX_HOME/sessions in the
// rollout format codex writes (taken from real runs against the fake model; only the values are
// synthetic): per turn a user message, a reasoning summary, an exec_command call with
// `outputBytes` of varied output, and an agent message. For the huge-session bench (hundreds of
// MB) and the paged-history e2e test. Codex serves a thread's turns from an index it builds on
// the first thread/resume: `primeStoredSession` does that once, as a session codex ran would have.
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, writeSync, readFileSync } from "node:fs";
import path from "node:path";
import { pino } from "pino";
import { CodexHost } from "../../src/codex/index.js";

export interface StoredSessionOptions {
  /** A CODEX_HOME (e.g. createCodexHome().codexHome); sessions/ is created inside it. */
  codexHome: string;
  /** The thread's working directory (absolute). */
  cwd: string;
  /** Number of turns (default 2000). */
  turns?: number;
  /** Bytes of command output per turn (default 100_000); stored in full as aggregatedOutput.
   * (Real codex 0.169 keeps at most 64 KiB of it, head+tail, "... command output truncated for
   * persistence ..."; the model-facing function_call_output is cut to ~40 KB here as codex does.) */
  outputBytes?: number;
  /** Thread id (default: a fresh UUIDv7 dated at the session start). */
  threadId?: string;
  /** Session start (default: now minus one second per turn, so the last turn ends about now). */
  startMs?: number;
  /** Model slug written in the metadata (default "fake-model"). */
  model?: string;
  /** Model provider id (default "fake", as in createCodexHome's config). */
  modelProvider?: string;
  /** Each turn's command: a read (`cat`, as Codex parses it; the default) or a run (`make`, a terminal card for clients that show them). */
  commands?: "read" | "run";
  /** The moderation Codex stored on a turn's answer (0-based turn; as in 0.171's AgentMessage item), if any. */
  moderation?: (turn: number) => unknown;
}

export interface StoredSession {
  threadId: string;
  rolloutPath: string;
  /** Size of the rollout file in bytes. */
  bytes: number;
  /** Turn ids in order (UUIDv7, as codex makes them). */
  turnIds: string[];
  /** Lines written. */
  lines: number;
}

// ---- ids ---------------------------------------------------------------------------------------

/** A UUIDv7 whose time part is `ms` (codex uses v7 ids for threads, turns and items). */
export function uuidv7(ms: number): string {
  const b = randomBytes(16);
  let t = BigInt(Math.floor(ms));
  for (let i = 5; i >= 0; i--) {
    b[i] = Number(t & 0xffn);
    t >>= 8n;
  }
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const iso = (ms: number) => new Date(ms).toISOString();
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

// ---- output text ---------------------------------------------------------------------------------

/** Deterministic pseudo-random command output of exactly `bytes` bytes (ASCII), numbered lines. */
function commandOutput(turn: number, bytes: number): string {
  let s = (turn * 2654435761) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"];
  const parts: string[] = [];
  let len = 0;
  for (let line = 1; len < bytes; line++) {
    const l = `t${turn} line ${line}: ${words[next() % words.length]} ${next().toString(16)}${next().toString(36)} ${words[next() % words.length]}=${next() % 100000}\n`;
    parts.push(l);
    len += l.length;
  }
  return parts.join("").slice(0, bytes);
}

/** What codex 0.169 sends the model (and stores in function_call_output) for a large output:
 * head and tail with a "…N tokens truncated…" marker; the full output if it is small. */
function modelFacingOutput(output: string, wallSeconds: string): string {
  const tokens = Math.ceil(output.length / 4);
  const header = `Chunk ID: ${randomBytes(3).toString("hex")}\nWall time: ${wallSeconds} seconds\nProcess exited with code 0\nOriginal token count: ${tokens}\nOutput:\n`;
  const LIMIT = 40_000; // ~ what codex keeps (12000-token limit)
  if (output.length <= LIMIT) return header + output;
  const lines = output.split("\n").length - 1;
  const half = LIMIT / 2;
  const cut = Math.ceil((output.length - LIMIT) / 4);
  return `${header}Warning: truncated output (original token count: ${tokens})\nTotal output lines: ${lines}\n\n${output.slice(0, half)}…${cut} tokens truncated…${output.slice(-half)}`;
}

// ---- the generator -----------------------------------------------------------------------------

function baseInstructions(codexHome: string, model: string): string {
  try {
    const catalog = JSON.parse(readFileSync(path.join(codexHome, "models.json"), "utf8")) as {
      models: { slug: string; base_instructions?: string }[];
    };
    const m = catalog.models.find((x) => x.slug === model) ?? catalog.models[0];
    if (m?.base_instructions) return m.base_instructions;
  } catch {
    // no catalog: a short stand-in
  }
  return "You are Codex, a coding agent. (synthetic session)";
}

export async function makeStoredSession(opts: StoredSessionOptions): Promise<StoredSession> {
  const turns = opts.turns ?? 2000;
  const outputBytes = opts.outputBytes ?? 100_000;
  const model = opts.model ?? "fake-model";
  const provider = opts.modelProvider ?? "fake";
  const cwd = path.resolve(opts.cwd);
  const startMs = opts.startMs ?? Date.now() - turns * 1000 - 5000;
  const threadId = opts.threadId ?? uuidv7(startMs);

  const d = new Date(startMs);
  const dir = path.join(opts.codexHome, "sessions", String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate()));
  mkdirSync(dir, { recursive: true });
  const stamp = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}`;
  const rolloutPath = path.join(dir, `rollout-${stamp}-${threadId}.jsonl`);

  const permissionEntries = [
    { path: { type: "special", value: { kind: "root" } }, access: "read" },
    { path: { type: "path", path: cwd }, access: "write" },
    { path: { type: "special", value: { kind: "slash_tmp" } }, access: "write" },
    { path: { type: "special", value: { kind: "tmpdir" } }, access: "write" },
    ...[".git", ".agents", ".codex", ".aws"].map((p) => ({
      path: { type: "path", path: path.join(cwd, p) },
      access: "read",
      missing_path_behavior: "skip",
    })),
  ];
  const permissionProfile = {
    type: "managed",
    file_system: { type: "restricted", entries: permissionEntries },
    network: "restricted",
  };
  const collaborationMode = {
    mode: "default",
    settings: { model, reasoning_effort: null, developer_instructions: null },
  };
  const usage = (n: number) => ({
    input_tokens: 100 * n,
    cached_input_tokens: 0,
    cache_write_input_tokens: 0,
    output_tokens: 10 * n,
    reasoning_output_tokens: 0,
    total_tokens: 110 * n,
  });
  const rateLimits = {
    limit_id: "codex",
    limit_name: null,
    primary: null,
    secondary: null,
    credits: null,
    individual_limit: null,
    spend_control_reached: null,
    plan_type: null,
    rate_limit_reached_type: null,
  };

  const fd = openSync(rolloutPath, "w");
  let ordinal = 0;
  let bytes = 0;
  let historySeq = 0;
  let responses = 0;
  let userInputOrder = 0;
  let buf: string[] = [];
  let bufLen = 0;
  const flush = () => {
    if (buf.length === 0) return;
    const chunk = Buffer.from(buf.join(""), "utf8");
    writeSync(fd, chunk);
    bytes += chunk.length;
    buf = [];
    bufLen = 0;
  };
  const emit = (ms: number, type: string, payload: unknown) => {
    const line = `${JSON.stringify({ timestamp: iso(ms), ordinal: ordinal++, type, payload })}\n`;
    buf.push(line);
    bufLen += line.length;
    if (bufLen > 4 * 1024 * 1024) flush();
  };
  // response_item lines carry a "metadata" sibling of payload.
  const emitItem = (ms: number, payload: unknown, metadata: Record<string, unknown>) => {
    const line = `${JSON.stringify({ timestamp: iso(ms), ordinal: ordinal++, type: "response_item", payload, metadata })}\n`;
    buf.push(line);
    bufLen += line.length;
    if (bufLen > 4 * 1024 * 1024) flush();
  };

  const moderationOf = (t: number) => {
    const moderation = opts.moderation?.(t);
    return moderation === undefined ? {} : { moderation };
  };

  const turnIds: string[] = [];
  try {
    emit(startMs, "session_meta", {
      account_scoped: true,
      session_id: threadId,
      id: threadId,
      timestamp: iso(startMs),
      cwd,
      runtime_workspace_roots: [cwd],
      originator: "codex_vscode",
      cli_version: "0.169.0",
      source: "vscode",
      model_provider: provider,
      base_instructions: { text: baseInstructions(opts.codexHome, model), provenance: { type: "model", model } },
      history_mode: "paginated",
      context_window: { window_id: uuidv7(startMs) },
    });

    for (let t = 0; t < turns; t++) {
      // One second per turn; each step a few ms apart.
      let ms = startMs + 10 + t * 1000;
      const at = () => (ms += 3);
      const turnId = uuidv7(ms);
      turnIds.push(turnId);
      const turnStartSec = Math.floor(ms / 1000);
      const turnStartMs = ms;
      const pass = { turn_id: turnId };
      emit(at(), "event_msg", {
        type: "task_started",
        turn_attribution: {
          turn_id: turnId,
          turn_trigger: null,
          parent_turn_id: null,
          initiating_agent_path: null,
          root_turn_id: turnId,
        },
        turn_id: turnId,
        root_turn_id: turnId,
        started_at: turnStartSec,
        model_context_window: 258400,
        collaboration_mode_kind: "default",
      });
      if (t === 0) {
        // Codex puts the initial context (developer message, environment context) in the first turn.
        const devId = `msg_${uuidv7(ms)}`;
        emitItem(
          at(),
          {
            type: "message",
            id: devId,
            role: "developer",
            content: [
              {
                type: "input_text",
                text: "<permissions instructions>\nFilesystem sandboxing: workspace-write.\n</permissions instructions>",
              },
            ],
            internal_chat_message_metadata_passthrough: {
              ...pass,
              create_time: ms / 1000,
              content_item_kinds: ["permissions.instructions"],
              content_item_metadata: [{ provenance: { type: "harness", hook: false } }],
            },
          },
          {
            history_sequence: ++historySeq,
            sampled_through_sequence: 0,
            client_authored: false,
            mcp_attribution: { status: "none" },
          },
        );
        const envId = `msg_${uuidv7(ms)}`;
        emitItem(
          at(),
          {
            type: "message",
            id: envId,
            role: "user",
            content: [
              {
                type: "input_text",
                text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>${iso(ms).slice(0, 10)}</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>`,
              },
            ],
            internal_chat_message_metadata_passthrough: {
              ...pass,
              create_time: ms / 1000,
              content_item_kinds: ["environments.environment_context"],
              content_item_metadata: [{ provenance: { type: "harness", hook: false } }],
            },
          },
          { history_sequence: ++historySeq, sampled_through_sequence: 0, client_authored: false },
        );
      }
      emit(at(), "turn_context", {
        turn_id: turnId,
        root_turn_id: turnId,
        disabled_plugin_ids: [],
        cwd,
        approval_policy: "never",
        approvals_reviewer: "user",
        permission_profile: permissionProfile,
        model,
        comp_hash: "2911",
        collaboration_mode: collaborationMode,
        multi_agent_version: "v1",
        realtime_active: false,
        summary: "none",
        sandbox_policy: {
          type: "workspace-write",
          network_access: false,
          exclude_tmpdir_env_var: false,
          exclude_slash_tmp: false,
        },
        file_system_sandbox_policy: { kind: "restricted", entries: permissionEntries },
      });
      const sampledBefore = historySeq;

      // user message: the model-facing item, then the client-facing item_completed (its own id).
      const userText = `Turn ${t + 1} of ${turns}: please run the listing for batch #${t + 1} and summarise it.`;
      const userMsgId = `msg_${uuidv7(ms)}`;
      emitItem(
        at(),
        {
          type: "message",
          id: userMsgId,
          role: "user",
          content: [{ type: "input_text", text: userText }],
          internal_chat_message_metadata_passthrough: {
            ...pass,
            create_time: ms / 1000,
            content_item_kinds: ["user.text"],
            content_item_metadata: [{ provenance: { type: "user" } }],
          },
        },
        {
          history_sequence: ++historySeq,
          sampled_through_sequence: sampledBefore,
          retained_source: {
            id: { message_id: userMsgId, turn_id: turnId, role: "user" },
            revision: `retained_${uuidv7(ms)}`,
            complete: true,
          },
          client_authored: false,
          user_input_order: userInputOrder++,
          mcp_attribution: { status: "none" },
        },
      );
      const userItemId = uuidv7(ms);
      emit(at(), "event_msg", {
        type: "item_completed",
        thread_id: threadId,
        turn_id: turnId,
        item: { type: "UserMessage", id: userItemId, content: [{ type: "text", text: userText, text_elements: [] }] },
        started_at_ms: ms,
        completed_at_ms: ms,
      });
      const userSeq = historySeq;

      // first model response: reasoning + exec_command call
      responses++;
      const rsId = `rs_t${t + 1}_0`;
      const reasoningText = `Turn ${t + 1}: I should run the listing command for batch ${t + 1} and look at its output.`;
      const r0 = at();
      emit(at(), "event_msg", {
        type: "item_completed",
        thread_id: threadId,
        turn_id: turnId,
        item: { type: "Reasoning", id: rsId, summary_text: [reasoningText], raw_content: [] },
        started_at_ms: r0,
        completed_at_ms: ms,
      });
      emitItem(
        at(),
        {
          type: "reasoning",
          id: rsId,
          summary: [{ type: "summary_text", text: reasoningText }],
          content: null,
          encrypted_content: null,
          internal_chat_message_metadata_passthrough: pass,
        },
        { history_sequence: ++historySeq, sampled_through_sequence: userSeq, client_authored: false },
      );
      const callId = `call_t${t + 1}_exec`;
      const cmd = opts.commands === "run" ? `make batch-${t + 1}` : `cat batch-${t + 1}.log`;
      emitItem(
        at(),
        {
          type: "function_call",
          status: "completed",
          id: `fc_t${t + 1}_1`,
          name: "exec_command",
          arguments: JSON.stringify({ cmd }),
          call_id: callId,
          internal_chat_message_metadata_passthrough: pass,
        },
        {
          history_sequence: ++historySeq,
          sampled_through_sequence: userSeq,
          client_authored: false,
          user_input_order: userInputOrder++,
        },
      );
      emit(at(), "token_usage_record", {
        thread_id: threadId,
        turn_id: turnId,
        session_id: threadId,
        root_turn_id: turnId,
        response_id: `resp_${responses}`,
        usage: usage(1),
        turn_token_usage: usage(1),
        thread_token_usage: usage(2 * t + 1),
      });

      const output = commandOutput(t + 1, outputBytes);
      const execStart = at();
      ms += 40;
      const parsedCmd =
        opts.commands === "run"
          ? [{ type: "unknown", cmd }]
          : [{ type: "read", cmd, name: `batch-${t + 1}.log`, path: `batch-${t + 1}.log` }];
      emit(ms, "event_msg", {
        type: "item_completed",
        thread_id: threadId,
        turn_id: turnId,
        item: {
          type: "CommandExecution",
          id: callId,
          process_id: String(10000 + (t % 50000)),
          command: ["/bin/bash", "-lc", cmd],
          cwd: `file://${cwd}`,
          parsed_cmd: parsedCmd,
          source: "unified_exec_startup",
          status: "completed",
          aggregated_output: output,
          exit_code: 0,
          duration: { secs: 0, nanos: 40_000_000 },
        },
        started_at_ms: execStart,
        completed_at_ms: ms,
      });
      emitItem(
        at(),
        {
          type: "function_call_output",
          id: `fco_${uuidv7(ms)}`,
          call_id: callId,
          output: modelFacingOutput(output, "0.0400"),
          internal_chat_message_metadata_passthrough: { ...pass, create_time: ms / 1000 },
        },
        {
          history_sequence: ++historySeq,
          sampled_through_sequence: userSeq,
          client_authored: false,
          fallback_token_limit_override: 12000,
        },
      );
      const outSeq = historySeq;
      emit(at(), "event_msg", {
        type: "token_count",
        info: {
          total_token_usage: usage(2 * t + 1),
          last_token_usage: usage(1),
          last_usage_includes_reasoning: false,
          model_context_window: 258400,
        },
        rate_limits: rateLimits,
      });

      // second model response: the answer
      responses++;
      const msgId = `msg_t${t + 1}_answer`;
      const answer = `Turn ${t + 1} done: batch ${t + 1} produced ${output.split("\n").length - 1} lines (${outputBytes} bytes); nothing unusual in batch #${t + 1}.`;
      const a0 = at();
      emit(at(), "event_msg", {
        type: "item_completed",
        thread_id: threadId,
        turn_id: turnId,
        item: { type: "AgentMessage", id: msgId, content: [{ type: "Text", text: answer }], ...moderationOf(t) },
        started_at_ms: a0,
        completed_at_ms: ms,
      });
      emitItem(
        at(),
        {
          type: "message",
          status: "completed",
          id: msgId,
          role: "assistant",
          content: [{ type: "output_text", text: answer, annotations: [] }],
          internal_chat_message_metadata_passthrough: { ...pass, content_item_kinds: ["unknown"] },
        },
        {
          history_sequence: ++historySeq,
          sampled_through_sequence: outSeq,
          retained_source: {
            id: { message_id: msgId, turn_id: turnId, role: "assistant" },
            revision: `retained_${uuidv7(ms)}`,
            complete: true,
          },
          client_authored: false,
          user_input_order: userInputOrder++,
        },
      );
      emit(at(), "token_usage_record", {
        thread_id: threadId,
        turn_id: turnId,
        session_id: threadId,
        root_turn_id: turnId,
        response_id: `resp_${responses}`,
        usage: usage(1),
        turn_token_usage: usage(2),
        thread_token_usage: usage(2 * t + 2),
      });
      emit(at(), "event_msg", {
        type: "token_count",
        info: {
          total_token_usage: usage(2 * t + 2),
          last_token_usage: usage(1),
          last_usage_includes_reasoning: false,
          model_context_window: 258400,
        },
        rate_limits: rateLimits,
      });
      emit(at(), "event_msg", {
        type: "task_complete",
        root_turn_id: turnId,
        turn_id: turnId,
        last_agent_message: answer,
        started_at: turnStartSec,
        completed_at: Math.floor(ms / 1000),
        duration_ms: ms - turnStartMs,
        time_to_first_token_ms: 30,
      });
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return { threadId, rolloutPath, bytes, turnIds, lines: ordinal };
}

// ---- priming ---------------------------------------------------------------------------------------

/**
 * Opens the thread once with `codex app-server` (thread/resume excludeTurns), as a session codex
 * itself ran would have been: codex 0.169 serves a thread's turns from an index
 * (CODEX_HOME/thread_history_1.sqlite) it builds on thread/resume; before that, thread/turns/list
 * and thread/read {includeTurns} answer with no turns at all. Returns how long the resume took.
 */
export async function primeStoredSession(opts: {
  codexPath: string;
  env: NodeJS.ProcessEnv;
  threadId: string;
}): Promise<{ resumeMs: number }> {
  const host = new CodexHost(
    {
      command: { file: opts.codexPath, args: [], via: "native" },
      env: opts.env,
      clientInfo: { name: "prime-stored-session", title: "prime", version: "1" },
      deadlineMs: 300_000,
    },
    pino({ level: "silent" }),
  );
  host.start();
  try {
    const client = await host.client();
    const t0 = performance.now();
    await client.call("thread/resume", { threadId: opts.threadId, excludeTurns: true });
    return { resumeMs: performance.now() - t0 };
  } finally {
    await host.close();
  }
}
