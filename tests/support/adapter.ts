// Starts the bundled adapter (dist/index.js) exactly as an editor would, against the
// project's fake model and a hermetic CODEX_HOME, and connects a real ACP client
// from @agentclientprotocol/sdk. Every stdout line is also kept raw, so tests can
// check that stdout carries nothing but JSON-RPC.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import {
  createCodexHome,
  startFakeModel,
  type CodexHome,
  type FakeModel,
  type ScriptedResponse,
} from "../../tools/fake-model/index.js";
import { waitFor } from "./wait-for.js";

export const DIST_BIN = path.resolve(import.meta.dirname, "../../dist/index.js");

export type AdapterOptions = {
  responses?: ScriptedResponse[];
  /** Registers client-side handlers (fs/*, permissions) on the SDK client before it connects. */
  setupClient?: (app: acp.ClientApp) => void;
  /** The agent's entry point (default: this checkout's dist/index.js). */
  bin?: string;
  extraConfig?: string;
  /** The user's own config.toml settings (top-level keys: approval_policy, sandbox_mode, model_reasoning_effort, ...). */
  userConfig?: string;
  /** Files written into CODEX_HOME before the agent starts, by name (e.g. a profile's `<name>.config.toml`). */
  codexFiles?: Record<string, string>;
  /** A made-up ChatGPT sign-in served by the fake model (createCodexHome's chatgptSignIn). */
  chatgptSignIn?: boolean;
  env?: Record<string, string>;
  /** Reuse an existing fake model / CODEX_HOME (e.g. a second adapter process on the same history). */
  fake?: FakeModel;
  home?: CodexHome;
  workspace?: string;
  /** Starts the agent in the workspace, as an editor starts it in the project's root (else in this checkout). */
  inWorkspace?: true;
};

export type Adapter = {
  fake: FakeModel;
  home: CodexHome;
  workspace: string;
  child: ChildProcess;
  agent: acp.ClientContext;
  connection: acp.ClientConnection;
  /** Raw stdout lines of the adapter. */
  stdoutLines: string[];
  stderr: () => string;
  /** Every session/update received, per session id, in order. */
  updates: Map<string, acp.SessionUpdate[]>;
  updatesOf(sessionId: string): acp.SessionUpdate[];
  initialize(caps?: acp.ClientCapabilities): Promise<acp.InitializeResponse>;
  newSession(cwd?: string, extra?: Partial<acp.NewSessionRequest>): Promise<acp.NewSessionResponse>;
  prompt(sessionId: string, text: string | acp.ContentBlock[]): Promise<acp.PromptResponse>;
  writeRaw(line: string): void;
  /** Resolves with the next raw stdout line that satisfies `pred`. */
  waitForLine(pred: (msg: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
};

/** The agent process as an editor starts it, before any client: its streams, raw stdout lines and clean-up. */
export type AgentProcess = {
  fake: FakeModel;
  home: CodexHome;
  workspace: string;
  child: ChildProcess;
  stdoutLines: string[];
  stderr: () => string;
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  waitForLine(pred: (msg: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Ends stdin, waits for the exit (SIGKILL after 5 s), removes what it made, and checks codex's messages were all readable. */
  stop(): Promise<void>;
};

/** Starts dist/index.js (or `opts.bin`) against the fake model and a hermetic CODEX_HOME, as an editor would. */
export async function spawnAgent(opts: AdapterOptions = {}): Promise<AgentProcess> {
  const fake = opts.fake ?? (await startFakeModel(opts.responses ?? []));
  if (opts.fake && opts.responses) fake.enqueue(...opts.responses);
  const home =
    opts.home ??
    (await createCodexHome({
      modelUrl: fake.url,
      extraConfig: opts.extraConfig,
      userConfig: opts.userConfig,
      ...(opts.chatgptSignIn ? { chatgptSignIn: true } : {}),
    }));
  for (const [name, text] of Object.entries(opts.codexFiles ?? {}))
    await writeFile(path.join(home.codexHome, name), text);
  const workspace = opts.workspace ?? (await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-ws-"))));
  const child = spawn(process.execPath, [opts.bin ?? DIST_BIN], {
    env: { ...process.env, ...home.env, CODEX_ACP_LOG_LEVEL: "debug", ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
    ...(opts.inWorkspace ? { cwd: workspace } : {}),
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (c: string) => {
    stderr += c;
    if (stderr.length > 2_000_000) stderr = stderr.slice(-1_000_000);
  });
  const stdoutLines: string[] = [];
  const lineWaiters = new Set<(msg: Record<string, unknown>) => boolean>();
  let partial = "";
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on("data", (chunk: Buffer) => {
        partial += chunk.toString("utf8");
        let nl: number;
        while ((nl = partial.indexOf("\n")) >= 0) {
          const line = partial.slice(0, nl);
          partial = partial.slice(nl + 1);
          stdoutLines.push(line);
          let msg: Record<string, unknown> | undefined;
          try {
            msg = JSON.parse(line) as Record<string, unknown>;
          } catch {
            msg = undefined;
          }
          if (msg) for (const w of [...lineWaiters]) if (w(msg)) lineWaiters.delete(w);
        }
        try {
          controller.enqueue(new Uint8Array(chunk));
        } catch {
          /* the client closed the connection; late output (e.g. a deferred notification) is only kept raw */
        }
      });
      child.stdout.on("end", () => {
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      });
    },
  });
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise<void>((resolve, reject) => child.stdin.write(chunk, (err) => (err ? reject(err) : resolve())));
    },
  });
  child.stdin.on("error", () => undefined);
  return {
    fake,
    home,
    workspace,
    child,
    stdoutLines,
    stderr: () => stderr,
    readable,
    writable,
    waitForLine: (pred, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("timed out waiting for a stdout line")), timeoutMs);
        lineWaiters.add((msg) => {
          if (!pred(msg)) return false;
          clearTimeout(timer);
          resolve(msg);
          return true;
        });
      }),
    stop: async () => {
      child.stdin.end();
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once("exit", () => resolve());
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
      if (!opts.fake) await fake.close();
      if (!opts.home) await home.cleanup();
      if (!opts.workspace) await rm(workspace, { recursive: true, force: true });
      // The real codex's messages must pass the validators generated from its own schema.
      const unreadable = stderr.split("\n").filter((l) => l.includes("Codex's schema does not describe"));
      if (unreadable.length > 0)
        throw new Error(`the adapter could not read what codex sent:\n${unreadable.join("\n")}`);
    },
  };
}

export async function startAdapter(opts: AdapterOptions = {}): Promise<Adapter> {
  const proc = await spawnAgent(opts);
  const { fake, home, workspace, child, stdoutLines, readable, writable } = proc;

  const updates = new Map<string, acp.SessionUpdate[]>();
  const app = acp.client({ name: "test-client" }).onNotification(acp.methods.client.session.update, ({ params }) => {
    const list = updates.get(params.sessionId) ?? [];
    list.push(params.update);
    updates.set(params.sessionId, list);
  });
  opts.setupClient?.(app);
  const connection = app.connect(acp.ndJsonStream(writable, readable));
  const agent = connection.agent;

  const adapter: Adapter = {
    fake,
    home,
    workspace,
    child,
    agent,
    connection,
    stdoutLines,
    stderr: proc.stderr,
    updates,
    updatesOf: (id) => updates.get(id) ?? [],
    initialize: (caps) =>
      agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        // Notices by default: a warning about this machine (a config.toml Codex could not read) is
        // then a notice, not agent text in some test's first turn (Codex's "bubblewrap not found,
        // using the bundled one" is only logged). A test about clients without notices passes its
        // own `session` capabilities.
        clientCapabilities: { session: { notices: {} }, ...caps },
        clientInfo: { name: "test-client", version: "1.0.0" },
      }),
    newSession: (cwd, extra) =>
      agent.request(acp.methods.agent.session.new, { cwd: cwd ?? workspace, mcpServers: [], ...extra }),
    prompt: (sessionId, text) =>
      agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: typeof text === "string" ? [{ type: "text", text }] : text,
      }),
    writeRaw: (line) => child.stdin!.write(line.endsWith("\n") ? line : `${line}\n`),
    waitForLine: (pred, timeoutMs) => proc.waitForLine(pred, timeoutMs),
    close: async () => {
      connection.close();
      await proc.stop();
    },
  };
  return adapter;
}

/** Concatenated text of the agent_message_chunk updates. */
export function messageText(updates: acp.SessionUpdate[]): string {
  return updates
    .filter(
      (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "agent_message_chunk" }> =>
        u.sessionUpdate === "agent_message_chunk",
    )
    .map((u) => (u.content.type === "text" ? u.content.text : ""))
    .join("");
}

/** Whether a process with this pid is still there (signal 0 tests for it without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Finds the pid of the codex app-server child of the adapter process (Linux /proc). */
export async function codexChildPid(adapterPid: number): Promise<number | undefined> {
  const { readFile } = await import("node:fs/promises");
  try {
    const children = (await readFile(`/proc/${adapterPid}/task/${adapterPid}/children`, "utf8"))
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    for (const pid of children) {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      if (cmdline.includes("app-server")) return Number(pid);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * Kills the adapter's codex child (SIGKILL) and resolves with its pid once the adapter has logged
 * the exit: what the next request finds is a dead child the adapter knows of.
 */
export async function killCodex(adapter: Pick<Adapter, "child" | "stderr">): Promise<number> {
  const pid = await codexChildPid(adapter.child.pid!);
  if (pid === undefined) throw new Error("the adapter has no codex child to kill");
  const exitsLogged = (): number => adapter.stderr().split("codex app-server exited").length - 1;
  const before = exitsLogged();
  process.kill(pid, "SIGKILL");
  await waitFor(() => exitsLogged() > before, `the adapter to log the exit of codex ${pid}`);
  return pid;
}

/** A client-side permission handler that picks `optionId` every time and keeps what was asked. */
export function answerPermissions(optionId: string): {
  asked: acp.RequestPermissionRequest[];
  setupClient: (app: acp.ClientApp) => void;
} {
  const asked: acp.RequestPermissionRequest[] = [];
  return {
    asked,
    setupClient: (app) =>
      app.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        asked.push(params);
        return { outcome: { outcome: "selected", optionId } };
      }),
  };
}

/**
 * A session's `session/update` payloads as the adapter wrote them on stdout, ACP's unstable
 * updates included (the stable test client's schema drops those: plan_update, subagent_update).
 */
export function rawUpdatesOf(adapter: Pick<Adapter, "stdoutLines">, sessionId: string): Array<Record<string, unknown>> {
  return adapter.stdoutLines.flatMap((line) => {
    const msg = JSON.parse(line) as {
      method?: string;
      params?: { sessionId?: string; update?: Record<string, unknown> };
    };
    return msg.method === "session/update" && msg.params?.sessionId === sessionId && msg.params.update
      ? [msg.params.update]
      : [];
  });
}

/** What the model was given as the output of tool call `callId` (from the fake model's requests); throws when there is none. */
export function modelOutputFor(adapter: Pick<Adapter, "fake">, callId: string): string {
  for (const r of adapter.fake.requests) {
    for (const item of (r.body?.input ?? []) as Array<{ type: string; call_id?: string; output?: unknown }>) {
      if (
        (item.type === "function_call_output" || item.type === "custom_tool_call_output") &&
        item.call_id === callId
      ) {
        return typeof item.output === "string" ? item.output : JSON.stringify(item.output);
      }
    }
  }
  throw new Error(`no output for ${callId}`);
}
