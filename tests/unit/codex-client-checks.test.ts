// AppServerClient checks what Codex sends against validators generated from Codex's own JSON schema
// (src/codex/generated/validators.js): a message malformed in a field the adapter reads is not
// handed on; a server request that cannot be read is answered with an error (Codex would wait);
// a result of the wrong shape fails its call. Scripted stand-in children play Codex.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import pino from "pino";
import { AppServerClient, CodexRpcError, type CodexNotification } from "../../src/codex/index.js";

/**
 * A stand-in codex: prints `lines` (one per 10 ms); answers each request by its method from
 * `results` (else `{}`); reports every answer the client sends it as a `test/received` notification.
 */
function scriptedChild(lines: unknown[], results: Record<string, unknown> = {}) {
  const script = `
    const lines = ${JSON.stringify(lines.map((l) => JSON.stringify(l)))};
    const results = ${JSON.stringify(results)};
    let i = 0;
    const t = setInterval(() => { if (i < lines.length) process.stdout.write(lines[i++] + "\\n"); else clearInterval(t); }, 10);
    let buf = "";
    process.stdin.on("data", (d) => {
      buf += d;
      const parts = buf.split("\\n"); buf = parts.pop();
      for (const l of parts.filter(Boolean)) {
        const m = JSON.parse(l);
        if (m.method !== undefined && m.id !== undefined) process.stdout.write(JSON.stringify({ id: m.id, result: results[m.method] ?? {} }) + "\\n");
        else if (m.method === undefined) process.stdout.write(JSON.stringify({ method: "test/received", params: m }) + "\\n");
      }
    });
    process.stdin.on("end", () => process.exit(0));
  `;
  return spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "pipe"] });
}

function capturingLog() {
  const lines: string[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  const warnings = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 40);
  return { log, lines, warnings };
}

const SECRET = "SECRET-FILE-CONTENTS-1234";
const delta = (text: string) => ({
  method: "item/agentMessage/delta",
  params: { threadId: "t1", turnId: "u1", itemId: "m1", delta: text },
});

let clients: AppServerClient[] = [];
afterEach(async () => {
  for (const c of clients) await c.close(500);
  clients = [];
});

/** Attaches thread t1 and collects its notifications until a delta saying "end". */
function listen(client: AppServerClient, requests: string[] = []): Promise<CodexNotification[]> {
  const seen: CodexNotification[] = [];
  return new Promise((resolve) => {
    client.attachThread("t1", {
      notification: (n) => {
        seen.push(n);
        if (n.method === "item/agentMessage/delta" && n.params.delta === "end") resolve(seen);
      },
      request: async (r) => {
        requests.push(r.method);
        return { decision: "accept" };
      },
    });
  });
}

describe("AppServerClient checks Codex's notifications", () => {
  it("does not hand on one malformed in a field the adapter reads, and logs it once per method: path and message, never the payload", async () => {
    const { log, lines, warnings } = capturingLog();
    const malformed = [
      // The session reads tokenUsage.total and the bridge tokenUsage.last: null would throw there.
      { method: "thread/tokenUsage/updated", params: { threadId: "t1", turnId: "u1", tokenUsage: null, note: SECRET } },
      { method: "thread/tokenUsage/updated", params: { threadId: "t1", turnId: "u1", tokenUsage: 7 } },
      // Every reader keys items by id.
      {
        method: "item/started",
        params: { threadId: "t1", turnId: "u1", startedAtMs: 1, item: { type: "agentMessage", text: SECRET } },
      },
    ];
    const client = new AppServerClient(scriptedChild([...malformed, delta("end")]), log);
    clients.push(client);
    const seen = await listen(client);
    expect(seen.map((n) => n.method)).toEqual(["item/agentMessage/delta"]);
    const warned = warnings().filter((w) => w.method !== undefined);
    expect(warned.map((w) => [w.method, w.path])).toEqual([
      ["thread/tokenUsage/updated", "/tokenUsage"],
      ["item/started", "/item/id"],
    ]);
    expect(warned[0]?.issue).toMatch(/must be object/);
    expect(lines.join("\n")).not.toContain(SECRET);
  });

  it("hands on a valid one as it came (what it left out stays out: it may be handed on to the client)", async () => {
    const item = { type: "agentMessage", id: "m1", text: "hi" };
    const client = new AppServerClient(
      scriptedChild([
        { method: "item/completed", params: { threadId: "t1", turnId: "u1", completedAtMs: 2, item } },
        delta("end"),
      ]),
      pino({ level: "silent" }),
    );
    clients.push(client);
    const [completed] = await listen(client);
    expect(completed?.method).toBe("item/completed");
    if (completed?.method !== "item/completed") return;
    expect(completed.params.item).toEqual(item);
  });

  it("a newer Codex's item kind or status does not drop the item (readers report kinds they do not know)", async () => {
    const client = new AppServerClient(
      scriptedChild([
        {
          method: "item/started",
          params: { threadId: "t1", turnId: "u1", startedAtMs: 1, item: { type: "hologram", id: "h1" } },
        },
        {
          method: "item/completed",
          params: {
            threadId: "t1",
            turnId: "u1",
            completedAtMs: 2,
            item: {
              type: "commandExecution",
              id: "c1",
              command: "ls",
              cwd: "/w",
              commandActions: [],
              status: "vaporized",
              aggregatedOutput: null,
              exitCode: null,
              durationMs: null,
              processId: null,
            },
          },
        },
        delta("end"),
      ]),
      pino({ level: "silent" }),
    );
    clients.push(client);
    const seen = await listen(client);
    expect(seen.map((n) => n.method)).toEqual(["item/started", "item/completed", "item/agentMessage/delta"]);
  });

  it("a method this build does not know reaches the global listeners only (its params typed unknown)", async () => {
    const client = new AppServerClient(
      scriptedChild([{ method: "thread/teleported", params: { threadId: "t1" } }, delta("end")]),
      pino({ level: "silent" }),
    );
    clients.push(client);
    const global: string[] = [];
    client.onNotification((method) => void global.push(method));
    const seen = await listen(client);
    expect(seen.map((n) => n.method)).toEqual(["item/agentMessage/delta"]);
    expect(global).toEqual(["thread/teleported", "item/agentMessage/delta"]);
  });
});

describe("AppServerClient checks Codex's requests", () => {
  it("answers one whose params cannot be read with invalid params (-32602) instead of handing it on, so Codex is not left waiting", async () => {
    const { log, lines } = capturingLog();
    // An approval without the item it is about (itemId): nothing to show the user.
    const approval = {
      id: 41,
      method: "item/commandExecution/requestApproval",
      params: { threadId: "t1", turnId: "u1", command: SECRET },
    };
    const client = new AppServerClient(scriptedChild([approval]), log);
    clients.push(client);
    const asked: string[] = [];
    void listen(client, asked);
    const answer = await new Promise<unknown>((resolve) =>
      client.onNotification((method, params) => method === "test/received" && resolve(params)),
    );
    expect(answer).toMatchObject({ id: 41, error: { code: -32602 } });
    expect(JSON.stringify(answer)).toMatch(/itemId/);
    expect(asked).toEqual([]);
    expect(lines.join("\n")).not.toContain(SECRET);
  });

  it("hands on a valid one, typed", async () => {
    const approval = {
      id: 42,
      method: "item/commandExecution/requestApproval",
      params: { threadId: "t1", turnId: "u1", itemId: "c1", startedAtMs: 1 },
    };
    const client = new AppServerClient(scriptedChild([approval]), pino({ level: "silent" }));
    clients.push(client);
    const asked: string[] = [];
    void listen(client, asked);
    const answer = await new Promise<unknown>((resolve) =>
      client.onNotification((method, params) => method === "test/received" && resolve(params)),
    );
    expect(answer).toEqual({ id: 42, result: { decision: "accept" } });
    expect(asked).toEqual(["item/commandExecution/requestApproval"]);
  });
});

describe("AppServerClient checks Codex's results", () => {
  it("a result of the wrong shape fails the call", async () => {
    const client = new AppServerClient(
      scriptedChild([], { "turn/start": { turn: { id: 5 } }, "thread/read": { ok: true } }),
      pino({ level: "silent" }),
    );
    clients.push(client);
    await expect(client.call("turn/start", { threadId: "t1", input: [] })).rejects.toThrow(CodexRpcError);
    await expect(client.call("turn/start", { threadId: "t1", input: [] })).rejects.toThrow(/turn\/start.*\/turn\/id/);
    await expect(client.call("thread/read", { threadId: "t1", includeTurns: false })).rejects.toThrow(
      /\/thread is missing/,
    );
  });

  it("account/login/start without the address to open is an error, not undefined handed on", async () => {
    const client = new AppServerClient(
      scriptedChild([], { "account/login/start": { type: "chatgpt", loginId: "l1" } }),
      pino({ level: "silent" }),
    );
    clients.push(client);
    await expect(client.call("account/login/start", { type: "chatgpt" })).rejects.toThrow(
      /account\/login\/start.*\/authUrl is missing/,
    );
  });

  it("a well-formed result resolves", async () => {
    const client = new AppServerClient(
      scriptedChild([], {
        "account/login/start": {
          type: "chatgptDeviceCode",
          loginId: "l1",
          verificationUrl: "https://x",
          userCode: "C",
        },
      }),
      pino({ level: "silent" }),
    );
    clients.push(client);
    await expect(client.call("account/login/start", { type: "chatgptDeviceCode" })).resolves.toEqual({
      type: "chatgptDeviceCode",
      loginId: "l1",
      verificationUrl: "https://x",
      userCode: "C",
    });
  });
});
