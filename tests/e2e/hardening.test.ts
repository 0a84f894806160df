// Faults from the client's side (issue 14, first part): the editor closing our stdout mid-stream,
// a bad log level, malformed notifications. Nothing crashes, stderr holds only structured log
// lines, and no codex is left behind.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse } from "../../tools/fake-model/index.js";
import { codexChildPid, startAdapter, type Adapter, isAlive } from "../support/adapter.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
const stopped: number[] = [];
afterEach(async () => {
  for (const pid of stopped.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await adapter?.close();
  adapter = undefined;
});

const exitOf = (a: Adapter): Promise<number | null> =>
  new Promise((resolve) => {
    if (a.child.exitCode !== null) resolve(a.child.exitCode);
    else a.child.once("exit", (code) => resolve(code));
  });

/** Every stderr line is one JSON log record (pino), never a bare message or a stack trace. */
function expectOnlyLogLines(stderr: string): void {
  const lines = stderr.split("\n").filter((l) => l.trim() !== "");
  const strays = lines.filter((l) => {
    try {
      return typeof (JSON.parse(l) as { level?: unknown }).level !== "number";
    } catch {
      return true;
    }
  });
  expect(strays).toEqual([]);
}

describe("the client closes our stdout mid-stream", () => {
  it("exits 0 with one log line, no stack trace, and no codex left running", async () => {
    adapter = await startAdapter();
    const text = Array.from({ length: 400 }, (_, i) => `word${i} `).join("");
    adapter.fake.enqueue({ ...textResponse(text, { deltas: 400 }), delayMs: 5 });
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    const codexPid = await codexChildPid(adapter.child.pid!);
    expect(codexPid).toBeDefined();
    void adapter.prompt(sessionId, "stream a lot").catch(() => undefined);
    await adapter.waitForLine(
      (m) =>
        (m.params as { update?: { sessionUpdate?: string } } | undefined)?.update?.sessionUpdate ===
        "agent_message_chunk",
    );
    adapter.child.stdout!.destroy();
    expect(await exitOf(adapter)).toBe(0);
    expectOnlyLogLines(adapter.stderr());
    expect(adapter.stderr()).toContain("the client closed its end of stdout");
    await waitFor(() => !isAlive(codexPid!), `codex ${codexPid} to be gone`);
  });
});

describe("asked to stop (SIGTERM, SIGINT, SIGHUP) in serve mode", () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`${signal}: exits 0 after closing codex and removing its catalog folder from the temp dir`, async () => {
      const tmp = await mkdtemp(path.join(os.tmpdir(), "cca-stop-"));
      try {
        adapter = await startAdapter({ env: { TMPDIR: tmp } });
        // An editor that writes files: its threads get a catalog without Codex's native apply_patch.
        await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
        await adapter.newSession();
        const codexPid = await codexChildPid(adapter.child.pid!);
        expect(codexPid).toBeDefined();
        stopped.push(codexPid!);
        // The session's model catalog sits in the temp dir while the agent runs.
        expect((await readdir(tmp)).filter((n) => n.startsWith("codex-cli-acp-catalog-"))).toHaveLength(1);
        const exit = exitOf(adapter);
        adapter.child.kill(signal);
        expect(await exit).toBe(0);
        expect((await readdir(tmp)).filter((n) => n.startsWith("codex-cli-acp-catalog-"))).toEqual([]);
        expect(isAlive(codexPid!)).toBe(false);
        expect(adapter.stderr()).toContain(`"signal":"${signal}"`);
        expectOnlyLogLines(adapter.stderr());
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    });
  }
});

describe("an agent killed outright (SIGKILL)", () => {
  it("leaves its catalog folder, which the next agent removes; a running agent's stays", async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), "cca-killed-"));
    const others: Adapter[] = [];
    const catalogs = async (): Promise<string[]> =>
      (await readdir(tmp)).filter((n) => n.startsWith("codex-cli-acp-catalog-")).sort();
    const started = async (): Promise<{ agent: Adapter; folder: string }> => {
      const before = await catalogs();
      const agent = await startAdapter({ env: { TMPDIR: tmp } });
      others.push(agent);
      await agent.initialize({ fs: { readTextFile: true, writeTextFile: true } });
      await agent.newSession();
      const folder = (await catalogs()).find((n) => !before.includes(n));
      expect(folder).toBeDefined();
      return { agent, folder: folder! };
    };
    try {
      const running = await started();
      const killed = await started();
      const exit = exitOf(killed.agent);
      killed.agent.child.kill("SIGKILL");
      await exit;
      expect(await catalogs()).toContain(killed.folder);
      const next = await started();
      await waitFor(
        async () => !(await catalogs()).includes(killed.folder),
        "the killed agent's catalog folder to go",
        10_000,
      );
      expect(await catalogs()).toEqual([running.folder, next.folder].sort());
    } finally {
      for (const agent of others) await agent.close().catch(() => undefined);
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("a client string with a lone UTF-16 surrogate (an emoji cut in half)", () => {
  it("reaches codex as U+FFFD and the prompt is answered, instead of codex dropping the message and the prompt waiting out its deadline", async () => {
    // A short deadline, so the fault this guards against fails in seconds, not two minutes.
    adapter = await startAdapter({ env: { CODEX_ACP_REQUEST_TIMEOUT_MS: "8000" } });
    adapter.fake.enqueue(textResponse("answered"));
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "half an emoji: \ud83d end")).stopReason).toBe("end_turn");
    expect(JSON.stringify(adapter.fake.requests.at(-1)?.body.input)).toContain("half an emoji: \ufffd end");
    expectOnlyLogLines(adapter.stderr());
  });
});

describe("configuration mistakes", () => {
  it("a number setting that cannot be used gets one warning naming it and the default used; the agent works", async () => {
    adapter = await startAdapter({ env: { CODEX_ACP_REQUEST_TIMEOUT_MS: "abc", CODEX_ACP_HANG_TIMEOUT_MS: "-5" } });
    adapter.fake.enqueue(textResponse("fine"));
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
    const warnings = adapter
      .stderr()
      .split("\n")
      .filter((l) => l.includes("cannot be used"));
    expect(warnings.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: 40,
        variable: "CODEX_ACP_HANG_TIMEOUT_MS",
        value: "-5",
        using: "the default, 30000",
      }),
      expect.objectContaining({
        level: 40,
        variable: "CODEX_ACP_REQUEST_TIMEOUT_MS",
        value: "abc",
        using: "the default, 120000",
      }),
    ]);
    expectOnlyLogLines(adapter.stderr());
  });

  it("a CODEX_PATH that does not exist: every session/new says so, the log says it once", async () => {
    adapter = await startAdapter({ env: { CODEX_PATH: "/nonexistent/codex" } });
    await adapter.initialize({});
    for (let i = 0; i < 3; i++)
      await expect(adapter.newSession()).rejects.toMatchObject({
        message: expect.stringContaining("CODEX_PATH does not exist: /nonexistent/codex"),
      });
    expect(
      adapter
        .stderr()
        .split("\n")
        .filter((l) => l.includes("cannot start codex")),
    ).toHaveLength(1);
    expect(adapter.child.exitCode).toBeNull();
  });

  it("an unknown CODEX_ACP_LOG_LEVEL falls back to info with one warning; the agent works", async () => {
    adapter = await startAdapter({ env: { CODEX_ACP_LOG_LEVEL: "loud" } });
    adapter.fake.enqueue(textResponse("fine"));
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
    const warnings = adapter
      .stderr()
      .split("\n")
      .filter((l) => l.includes("CODEX_ACP_LOG_LEVEL is not a log level"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, wanted: "loud", using: "info" });
    expectOnlyLogLines(adapter.stderr());
  });
});

describe("a huge value the agent refuses", () => {
  it("is not echoed whole in the error (a 200 KB mode id, model or config option id): the message stays short and still lists the choices", async () => {
    adapter = await startAdapter({});
    await adapter.initialize({ session: { configOptions: {} } });
    const { sessionId } = await adapter.newSession();
    const huge = "x".repeat(200_000);
    const refusals = await Promise.all([
      adapter.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: huge }).catch((e: unknown) => e),
      adapter.agent
        .request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "model", value: huge })
        .catch((e: unknown) => e),
      adapter.agent
        .request(acp.methods.agent.session.setConfigOption, { sessionId, configId: huge, value: "auto" })
        .catch((e: unknown) => e),
      adapter.agent.request("session/set_model", { sessionId, modelId: huge }).catch((e: unknown) => e),
    ]);
    for (const refusal of refusals) {
      const { code, message, data } = refusal as { code: number; message: string; data?: unknown };
      expect(code).toBe(-32602);
      expect(message).toMatch(/available: /);
      expect(message.length).toBeLessThan(2_000);
      expect(JSON.stringify(data ?? null).length).toBeLessThan(2_000);
    }
    const cwd = (await adapter.agent
      .request(acp.methods.agent.session.new, { cwd: `/${huge}`, mcpServers: [] })
      .catch((e: unknown) => e)) as { message: string };
    expect(cwd.message).toMatch(/cwd is not an existing directory: \/x+… \(200001 characters\)$/);
    // Nor logged whole (issue 49 item 6): a cancel for an unknown session, a request with a wrong version.
    await adapter.agent.notify(acp.methods.agent.session.cancel, { sessionId: huge });
    adapter.writeRaw(JSON.stringify({ jsonrpc: "1.0", id: huge, method: "session/new" }));
    await adapter.agent.request("nope/after", {}).catch(() => undefined);
    expect(adapter.stderr()).toContain(`… (${huge.length} chars)`);
    expect(
      Math.max(
        ...adapter
          .stderr()
          .split("\n")
          .map((l) => l.length),
      ),
    ).toBeLessThan(5_000);
  });
});

describe("malformed notifications", () => {
  it("are logged once per kind through the logger (never printed raw), and the session keeps working", async () => {
    adapter = await startAdapter();
    adapter.fake.enqueue(textResponse("still here"));
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    for (let i = 0; i < 50; i++)
      adapter.writeRaw(JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { bogus: i } }));
    expect((await adapter.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
    const once = adapter
      .stderr()
      .split("\n")
      .filter((l) => l.includes("malformed message from the client"));
    expect(once).toHaveLength(1);
    expect(JSON.parse(once[0]!)).toMatchObject({ level: 20, kind: "Error handling notification session/cancel" });
    expectOnlyLogLines(adapter.stderr());
  });
});

describe("a hung codex (SIGSTOP)", () => {
  const firstChunk = (text: string) => (m: Record<string, unknown>) =>
    JSON.stringify(m).includes(`"sessionUpdate":"agent_message_chunk"`) && JSON.stringify(m).includes(text);

  it("cancel answers at once; a new session works while the old codex is stopped; the old session resumes with its history", async () => {
    adapter = await startAdapter({ env: { CODEX_ACP_HANG_TIMEOUT_MS: "800" } });
    adapter.fake.enqueue(textResponse("noted"), { ...textResponse("partial", { deltas: 1 }), hang: true });
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "remember the word pineapple")).stopReason).toBe("end_turn");
    const hung = adapter.prompt(sessionId, "now take forever");
    await adapter.waitForLine(firstChunk("partial"));
    const pid = (await codexChildPid(adapter.child.pid!))!;
    process.kill(pid, "SIGSTOP");
    stopped.push(pid);
    const asked = Date.now();
    await adapter.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await hung).stopReason).toBe("cancelled");
    const cancelMs = Date.now() - asked;
    adapter.fake.enqueue(textResponse("a new session works"));
    const other = await adapter.newSession();
    expect((await adapter.prompt(other.sessionId, "hello")).stopReason).toBe("end_turn");
    adapter.fake.enqueue(textResponse("resumed"));
    expect((await adapter.prompt(sessionId, "still there?")).stopReason).toBe("end_turn");
    expect(JSON.stringify(adapter.fake.requests.at(-1)?.body.input)).toContain("pineapple");
    expect(adapter.stderr()).toContain("codex stopped responding");
    expectOnlyLogLines(adapter.stderr());
    // Shown, not asserted (tests never assert times): the closing note quotes it.
    process.stderr.write(`[measure] cancel -> cancelled with a stopped codex: ${cancelMs} ms\n`);
  });

  it("with the default hang timeout (30 s), session/new on a stopped idle codex still opens a working session", async () => {
    // Nothing else waits on codex: only session/new's own request finds it stopped. A request is
    // answered in milliseconds, so a few seconds of silence on one is probed at once (a busy
    // codex answers the probe; verified against a 300 MB thread/resume), unlike a running turn.
    adapter = await startAdapter();
    await adapter.initialize({});
    await adapter.newSession();
    const pid = (await codexChildPid(adapter.child.pid!))!;
    process.kill(pid, "SIGSTOP");
    stopped.push(pid);
    const asked = Date.now();
    adapter.fake.enqueue(textResponse("a new codex answers"));
    const { sessionId } = await adapter.newSession();
    const openedMs = Date.now() - asked;
    expect((await adapter.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
    expect(adapter.stderr()).toContain("codex stopped responding");
    expectOnlyLogLines(adapter.stderr());
    process.stderr.write(`[measure] session/new with a stopped codex (default hang timeout): ${openedMs} ms\n`);
  });

  it("session/list, session/load and session/resume on a codex stopped while idle are answered by a new one", async () => {
    // Only the request itself finds codex stopped; what it asks first (the thread list, the stored
    // thread) is a read, safe to ask again of the new child, as session/new's thread/start is.
    adapter = await startAdapter({ env: { CODEX_ACP_HANG_TIMEOUT_MS: "800" } });
    await adapter.initialize({ fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await adapter.newSession();
    adapter.fake.enqueue(textResponse("the pineapple answer"));
    expect((await adapter.prompt(sessionId, "remember pineapple")).stopReason).toBe("end_turn");
    const stopCodex = async (): Promise<void> => {
      const pid = (await codexChildPid(adapter!.child.pid!))!;
      process.kill(pid, "SIGSTOP");
      stopped.push(pid);
    };

    await stopCodex();
    const listed = (await adapter.agent.request(acp.methods.agent.session.list, {})) as {
      sessions: Array<{ sessionId: string }>;
    };
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);

    await stopCodex();
    const before = adapter.stdoutLines.length;
    await adapter.agent.request(acp.methods.agent.session.load, { sessionId, cwd: adapter.workspace, mcpServers: [] });
    expect(adapter.stdoutLines.slice(before).join("\n")).toContain("the pineapple answer");

    await stopCodex();
    await adapter.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: adapter.workspace,
      mcpServers: [],
    });
    adapter.fake.enqueue(textResponse("still here"));
    expect((await adapter.prompt(sessionId, "and now?")).stopReason).toBe("end_turn");
    expect(JSON.stringify(adapter.fake.requests.at(-1)?.body.input)).toContain("pineapple");
    expect(adapter.stderr().match(/codex stopped responding/g)?.length).toBeGreaterThanOrEqual(3);
    expectOnlyLogLines(adapter.stderr());
  });

  it("a prompt that finds codex stopped while idle fails as a turn Codex stopped in, and the next prompt runs on a new codex", async () => {
    // Not sent again by itself: codex may have taken the prompt into the thread before it stopped.
    adapter = await startAdapter({ env: { CODEX_ACP_HANG_TIMEOUT_MS: "800" } });
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    adapter.fake.enqueue(textResponse("the pineapple answer"));
    expect((await adapter.prompt(sessionId, "remember pineapple")).stopReason).toBe("end_turn");
    const pid = (await codexChildPid(adapter.child.pid!))!;
    process.kill(pid, "SIGSTOP");
    stopped.push(pid);
    await expect(adapter.prompt(sessionId, "are you there?")).rejects.toMatchObject({
      message: expect.stringMatching(/codex stopped responding.*during this turn.*send a prompt again/),
    });
    adapter.fake.enqueue(textResponse("back"));
    expect((await adapter.prompt(sessionId, "and now?")).stopReason).toBe("end_turn");
    expect(JSON.stringify(adapter.fake.requests.at(-1)?.body.input)).toContain("pineapple");
  });

  it("a prompt waiting on a stopped codex ends with an error that says so", async () => {
    adapter = await startAdapter({ env: { CODEX_ACP_HANG_TIMEOUT_MS: "800" } });
    adapter.fake.enqueue({ ...textResponse("partial", { deltas: 1 }), hang: true });
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    const hung = adapter.prompt(sessionId, "take forever");
    await adapter.waitForLine(firstChunk("partial"));
    const pid = (await codexChildPid(adapter.child.pid!))!;
    process.kill(pid, "SIGSTOP");
    stopped.push(pid);
    await expect(hung).rejects.toMatchObject({ message: expect.stringContaining("codex stopped responding") });
  });
});

describe("secrets stay out of the logs", () => {
  it("at the default level no prompt, file content or API key; at any level no MCP bearer token", async () => {
    const { writeFile } = await import("node:fs/promises");
    const path = await import("node:path");
    const { toolCallResponse } = await import("../../tools/fake-model/index.js");
    for (const level of ["info", "trace"]) {
      adapter = await startAdapter({ env: { CODEX_ACP_LOG_LEVEL: level, OPENAI_API_KEY: "sk-SECRET-KEY-789" } });
      const file = path.join(adapter.workspace, "secret.txt");
      await writeFile(file, "SECRET-FILE-456\n");
      adapter.fake.enqueue(
        toolCallResponse("read_text_file", { path: file }, { namespace: "mcp__acp_fs", callId: "r" }),
        toolCallResponse(
          "write_text_file",
          { path: file, content: "SECRET-WRITE-000\n" },
          { namespace: "mcp__acp_fs", callId: "w" },
        ),
        textResponse("done"),
      );
      await adapter.initialize({});
      await adapter.agent
        .request(acp.methods.agent.authenticate, { methodId: "openai-api-key" })
        .catch(() => undefined);
      const { sessionId } = await adapter.newSession();
      expect((await adapter.prompt(sessionId, "SECRET-PROMPT-123")).stopReason).toBe("end_turn");
      const stderr = adapter.stderr();
      expect(stderr, level).not.toMatch(/Bearer [A-Za-z0-9_-]{20,}/);
      if (level === "info") {
        for (const secret of ["SECRET-PROMPT-123", "SECRET-FILE-456", "SECRET-WRITE-000", "sk-SECRET-KEY-789"])
          expect(stderr).not.toContain(secret);
      }
      await adapter.close();
      adapter = undefined;
    }
  });
});

describe("codex that cannot start", () => {
  it.each([
    ["bad CODEX_ACP_CODEX_ARGS", { CODEX_ACP_CODEX_ARGS: "--bogus-flag" }, "unexpected argument '--bogus-flag'"],
    [
      "a CODEX_HOME that does not exist",
      { CODEX_HOME: "/nonexistent/codex-home" },
      'CODEX_HOME points to "/nonexistent/codex-home"',
    ],
    // Unusable for writing whoever runs the test (a read-only directory does not stop root): a file.
    ["a CODEX_HOME codex cannot use", { CODEX_HOME: process.execPath }, "that path is not a directory"],
  ])("%s: session/new says what is wrong, and not that a turn was interrupted", async (_what, env, said) => {
    adapter = await startAdapter({ env });
    await adapter.initialize({});
    const err = await adapter.newSession().then(
      () => undefined,
      (e: unknown) => e as { message: string },
    );
    expect(err?.message).toContain("Codex could not start");
    expect(err?.message).toContain(said);
    expect(err?.message).toContain("CODEX_ACP_CODEX_ARGS");
    expect(err?.message).not.toContain("during this turn");
    expect(adapter.child.exitCode).toBeNull();
  });
});

describe("no credentials", () => {
  it("session/new answers ACP's auth-required error naming the sign-in methods, before any model request", async () => {
    adapter = await startAdapter({ env: { CODEX_ACP_CODEX_ARGS: '-c model_provider="openai"' } });
    const init = await adapter.initialize({});
    const err = await adapter.newSession().then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string; data?: { authMethods?: string[] } },
    );
    expect(err).toMatchObject({ code: -32000 });
    expect(err?.message).toContain("`codex-cli-acp login` in a terminal");
    expect(err?.data?.authMethods).toEqual(init.authMethods?.map((m) => m.id));
    expect(adapter.fake.requests).toHaveLength(0);
  });
});
