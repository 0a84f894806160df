// The real `codex app-server` against the fake model, spoken to directly (no adapter): proves the
// fake model and the hermetic CODEX_HOME drive complete turns offline.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { startFakeModel, textResponse, toolCallResponse, httpError, type FakeModel } from "../support/fake-model.js";
import { createCodexHome, defaultCodexPath, type CodexHome } from "../support/codex-home.js";

type Msg = { id?: number | string; method?: string; params?: any; result?: any; error?: any };

/** Minimal newline-delimited JSON-RPC peer for `codex app-server` (no "jsonrpc" field). */
class AppServer {
  readonly notifications: Msg[] = [];
  readonly serverRequests: Msg[] = [];
  stderr = "";
  private buf = "";
  private nextId = 1;
  private pending = new Map<number, { resolve: (m: Msg) => void; reject: (e: Error) => void }>();
  private listeners = new Set<() => void>();
  private exited = false;

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => this.onData(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-20_000);
    });
    child.on("exit", () => {
      this.exited = true;
      for (const p of this.pending.values()) p.reject(new Error(`codex exited; stderr:\n${this.stderr}`));
      this.pending.clear();
    });
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl).trim();
      this.buf = this.buf.slice(nl + 1);
      if (!line) continue;
      const msg = JSON.parse(line) as Msg;
      if (msg.method === undefined && msg.id !== undefined) {
        const p = this.pending.get(Number(msg.id));
        this.pending.delete(Number(msg.id));
        p?.resolve(msg);
      } else if (msg.id !== undefined) {
        // No approvals are expected with approvalPolicy "never": record and refuse.
        this.serverRequests.push(msg);
        this.write({ id: msg.id, error: { code: -32601, message: "not supported by this test" } });
      } else {
        this.notifications.push(msg);
        for (const l of [...this.listeners]) l();
      }
    }
  }

  private write(msg: Msg): void {
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  async request(method: string, params: unknown): Promise<any> {
    if (this.exited) throw new Error("codex has exited");
    const id = this.nextId++;
    const reply = await new Promise<Msg>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write({ id, method, params });
    });
    if (reply.error) throw new Error(`${method} failed: ${JSON.stringify(reply.error)}`);
    return reply.result;
  }

  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Resolves with the first notification (past or future) matching pred. */
  waitFor(pred: (m: Msg) => boolean, timeoutMs = 20_000, what = "notification"): Promise<Msg> {
    const found = this.notifications.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const listener = () => {
        const m = this.notifications.find(pred);
        if (m) {
          this.listeners.delete(listener);
          clearTimeout(timer);
          resolve(m);
        }
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`timed out waiting for ${what}; stderr tail:\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.listeners.add(listener);
    });
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.child.once("exit", () => r()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 3_000);
    this.child.kill("SIGTERM");
    await gone;
    clearTimeout(timer);
  }
}

const turnIdOf = (m: Msg): string | undefined => m.params?.turnId ?? m.params?.turn?.id;

let fake: FakeModel;
let home: CodexHome;
let workspace: string;
let server: AppServer;

async function newThread(): Promise<string> {
  const res = await server.request("thread/start", {
    cwd: workspace,
    approvalPolicy: "never",
    sandbox: "workspace-write",
  });
  expect(typeof res.thread.id).toBe("string");
  return res.thread.id as string;
}

async function startTurn(threadId: string, text: string): Promise<string> {
  const res = await server.request("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }] });
  expect(res.turn.status).toBe("inProgress");
  return res.turn.id as string;
}

function turnCompleted(turnId: string): Promise<Msg> {
  return server.waitFor(
    (m) => m.method === "turn/completed" && m.params.turn.id === turnId,
    20_000,
    `turn/completed of ${turnId}`,
  );
}

function ofTurn(turnId: string, method: string): Msg[] {
  return server.notifications.filter((m) => m.method === method && turnIdOf(m) === turnId);
}

beforeAll(async () => {
  fake = await startFakeModel();
  home = await createCodexHome({ modelUrl: fake.url });
  workspace = path.join(home.base, "workspace");
  await fs.mkdir(workspace);
  const child = spawn(defaultCodexPath(), ["app-server"], {
    cwd: workspace,
    env: { ...process.env, ...home.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  server = new AppServer(child);
  const init = await server.request("initialize", {
    clientInfo: { name: "codex-plain-test", title: "codex-plain test", version: "0.0.0" },
    capabilities: { experimentalApi: true },
  });
  expect(init.codexHome).toBe(home.codexHome);
  server.notify("initialized");
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
  await home?.cleanup();
});

describe("real codex app-server against the fake model", () => {
  it("streams a scripted text answer and completes the turn, with no extra model requests", async () => {
    const text = "Hello from the fake model, streamed in pieces.";
    const before = fake.requests.length;
    fake.enqueue(textResponse(text));
    const threadId = await newThread();
    const turnId = await startTurn(threadId, "hi");
    const done = await turnCompleted(turnId);
    expect(done.params.turn.status).toBe("completed");

    const deltas = ofTurn(turnId, "item/agentMessage/delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.params.delta).join("")).toBe(text);
    const message = ofTurn(turnId, "item/completed").find((m) => m.params.item.type === "agentMessage");
    expect(message?.params.item.text).toBe(text);
    // the model's item id becomes the app-server item id
    expect(deltas[0]!.params.itemId).toBe(message?.params.item.id);

    // Exactly one model request for this turn, no title / memory / compaction side requests: the
    // next request the model sees is the next turn's.
    fake.enqueue(textResponse("the next turn"));
    const next = await startTurn(threadId, "next");
    expect((await turnCompleted(next)).params.turn.status).toBe("completed");
    expect(fake.requests.slice(before).map((r) => (r.body.input as any[]).at(-1)?.content?.[0]?.text)).toEqual([
      "hi",
      "next",
    ]);
    const req = fake.requests[before]!;
    expect(req.body.model).toBe("fake-model");
    expect(req.body.stream).toBe(true);
    expect(req.headers.authorization).toBe("Bearer fake-key");
    const toolNames = (req.body.tools as any[]).map((t) => t.name);
    expect(toolNames).toContain("exec_command");
    expect(toolNames).toContain("apply_patch");
    const lastInput = (req.body.input as any[]).at(-1);
    expect(lastInput).toMatchObject({ role: "user", content: [{ type: "input_text", text: "hi" }] });
  });

  it("streams reasoning summaries as reasoning deltas", async () => {
    fake.enqueue(textResponse("Answer.", { reasoning: "Thinking about the answer" }));
    const threadId = await newThread();
    const turnId = await startTurn(threadId, "think first");
    expect((await turnCompleted(turnId)).params.turn.status).toBe("completed");
    const reasoning = ofTurn(turnId, "item/reasoning/summaryTextDelta");
    expect(reasoning.length).toBeGreaterThan(0);
    expect(reasoning.map((d) => d.params.delta).join("")).toBe("Thinking about the answer");
    const item = ofTurn(turnId, "item/completed").find((m) => m.params.item.type === "reasoning");
    expect(item?.params.item.summary).toEqual(["Thinking about the answer"]);
  });

  it("runs an exec_command call and sends its output back to the model", async () => {
    const before = fake.requests.length;
    fake.enqueue(
      toolCallResponse("exec_command", { cmd: "echo plain-e2e-output" }, { callId: "call_exec_1" }),
      textResponse("The command printed plain-e2e-output."),
    );
    const threadId = await newThread();
    const turnId = await startTurn(threadId, "run echo");
    expect((await turnCompleted(turnId)).params.turn.status).toBe("completed");

    const cmd = ofTurn(turnId, "item/completed").find((m) => m.params.item.type === "commandExecution");
    expect(cmd?.params.item).toMatchObject({ id: "call_exec_1", status: "completed", exitCode: 0 });
    expect(cmd?.params.item.aggregatedOutput).toContain("plain-e2e-output");

    const reqs = await fake.waitForRequests(before + 2, 5_000);
    const followUp = reqs[before + 1]!.body.input as any[];
    const call = followUp.find((i) => i.type === "function_call" && i.call_id === "call_exec_1");
    expect(call?.name).toBe("exec_command");
    const output = followUp.find((i) => i.type === "function_call_output" && i.call_id === "call_exec_1");
    expect(output?.output).toContain("plain-e2e-output");
    const deltas = ofTurn(turnId, "item/agentMessage/delta")
      .map((d) => d.params.delta)
      .join("");
    expect(deltas).toBe("The command printed plain-e2e-output.");
  });

  it("fails the turn on HTTP errors and shows the model's message for a 4xx", async () => {
    fake.enqueue(httpError(500, "fake internal failure"), httpError(400, "fake bad request"));
    const threadId = await newThread();

    const t500 = await startTurn(threadId, "first");
    const failed500 = (await turnCompleted(t500)).params.turn;
    expect(failed500.status).toBe("failed");
    // codex 0.169 replaces a 5xx body with its own "high demand" text; the kind is kept
    expect(failed500.error.codexErrorInfo).toBe("internalServerError");
    expect(failed500.error.message).toMatch(/\S/);

    const t400 = await startTurn(threadId, "second");
    const failed400 = (await turnCompleted(t400)).params.turn;
    expect(failed400.status).toBe("failed");
    expect(failed400.error.message).toContain("fake bad request");
    const errorNote = ofTurn(t400, "error")[0];
    expect(errorNote?.params.willRetry).toBe(false);
  });

  it("interrupts a hanging stream: turn/completed with status interrupted", async () => {
    const before = fake.requests.length;
    fake.enqueue({ items: [{ type: "message", text: "partial answer" }], hang: true });
    const threadId = await newThread();
    const turnId = await startTurn(threadId, "hang please");
    await fake.waitForRequests(before + 1, 10_000);
    await server.waitFor(
      (m) => m.method === "item/agentMessage/delta" && turnIdOf(m) === turnId,
      10_000,
      "partial delta",
    );
    expect(await server.request("turn/interrupt", { threadId, turnId })).toEqual({});
    // The model's stream hangs until the fake model closes: the turn can only end by the interrupt.
    const done = await turnCompleted(turnId);
    expect(done.params.turn.status).toBe("interrupted");

    // the thread is usable afterwards
    fake.enqueue(textResponse("after interrupt"));
    const next = await startTurn(threadId, "again");
    expect((await turnCompleted(next)).params.turn.status).toBe("completed");
    expect(
      ofTurn(next, "item/agentMessage/delta")
        .map((d) => d.params.delta)
        .join(""),
    ).toBe("after interrupt");
    expect(server.serverRequests).toEqual([]);
  });
});
