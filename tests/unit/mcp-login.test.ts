// `/mcp login` in-process, on a stand-in codex: the ends of a sign-in the end-to-end tests cannot
// wait for (the 10-minute deadline, codex exiting, the session closing) each end it once, say so
// on its card (or, at close, say nothing) and leave no listener, timer or open question behind.
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentServices } from "../../src/core/feature-api.js";
import { AcpSession } from "../../src/core/session/session.js";
import { mcpLoginText, type McpLogins } from "../../src/features/commands/mcp-login.js";
import { note } from "../support/codex-messages.js";
import { FakeCodexClient, fakeHost } from "../support/fake-codex-client.js";

const URL_OF_PAGE = "https://auth.example/authorize?state=s";

function setUp(caps: acp.ClientCapabilities = {}) {
  const updates: acp.SessionUpdate[] = [];
  const asked: Array<{ method: string; params: unknown; signal?: AbortSignal }> = [];
  const exitListeners = new Set<(exit: unknown, generation: number) => void>();
  const codex = new FakeCodexClient({
    answers: { "mcpServer/oauth/login": () => ({ authorizationUrl: URL_OF_PAGE, loginId: "L1" }) },
  });
  const host = fakeHost(codex, {
    onExit: (listener: (exit: unknown, generation: number) => void) => (
      exitListeners.add(listener), () => void exitListeners.delete(listener)
    ),
  });
  const session = new AcpSession(
    "t1",
    { cwd: "/ws" },
    {
      host,
      log: pino({ level: "silent" }),
      sendUpdate: async (_id, u) => void updates.push(u),
      display: () => ({}),
      answerServerRequest: async () => ({}),
    },
  );
  session.bind(codex.client, 1);
  const client = {
    // The user never answers: the question stays open until it is withdrawn.
    request: (method: string, params: unknown, options?: { cancellationSignal?: AbortSignal }) => (
      asked.push({ method, params, signal: options?.cancellationSignal }), new Promise(() => undefined)
    ),
    notify: async (method: string, params: unknown) => void asked.push({ method, params }),
  };
  const services = {
    host,
    log: pino({ level: "silent" }),
    client: () => client as unknown as acp.AgentContext,
    clientCapabilities: () => caps,
    sessions: new Map(),
  } satisfies AgentServices;
  const logins: McpLogins = new Map();
  const card = (): { status?: string | null; text?: string } => {
    const last = updates
      .filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update")
      .at(-1);
    const content = last && "content" in last ? last.content?.[0] : undefined;
    return {
      status: last && "status" in last ? last.status : undefined,
      text: content?.type === "content" && content.content.type === "text" ? content.content.text : undefined,
    };
  };
  const leftBehind = () => ({
    threadListeners: session.trackerSizes().threadListeners,
    exitListeners: exitListeners.size,
    logins: logins.size,
    timers: vi.getTimerCount(),
  });
  return {
    session,
    services,
    logins,
    updates,
    asked,
    exitListeners,
    card,
    leftBehind,
    notify: (method: string, params: Record<string, unknown>) => codex.emit(note(method, params)),
  };
}

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("/mcp login", () => {
  it("a client without URL forms gets the page as text; the sign-in ends after 10 minutes without an answer, once", async () => {
    const t = setUp();
    expect(await mcpLoginText(t.session, "locked", t.services, t.logins)).toContain(URL_OF_PAGE);
    expect(t.card()).toEqual({ status: "in_progress", text: expect.stringContaining("Waiting") });
    expect(t.leftBehind()).toEqual({ threadListeners: 1, exitListeners: 1, logins: 1, timers: 1 });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    await t.session.flush();
    expect(t.card()).toEqual({
      status: "failed",
      text: "The sign-in to locked did not complete within 10 minutes; send `/mcp login locked` to try again.",
    });
    expect(t.leftBehind()).toEqual({ threadListeners: 0, exitListeners: 0, logins: 0, timers: 0 });
  });

  it("codex exiting ends it, and withdraws the page the editor still shows", async () => {
    const t = setUp({ elicitation: { url: {} } });
    await mcpLoginText(t.session, "locked", t.services, t.logins);
    await vi.waitFor(() => expect(t.asked).toHaveLength(1));
    expect(t.asked[0]).toMatchObject({
      method: "elicitation/create",
      params: { mode: "url", url: URL_OF_PAGE, elicitationId: "L1", sessionId: "t1" },
    });
    for (const listener of [...t.exitListeners]) listener({}, 1);
    await t.session.flush();
    expect(t.card()).toEqual({
      status: "failed",
      text: expect.stringContaining("Codex stopped during the sign-in to locked"),
    });
    expect(t.asked[0]!.signal?.aborted).toBe(true);
    expect(t.leftBehind()).toEqual({ threadListeners: 0, exitListeners: 0, logins: 0, timers: 0 });
  });

  it("the session closing ends it quietly: no card update, nothing left behind", async () => {
    const t = setUp({ elicitation: { url: {} } });
    await mcpLoginText(t.session, "locked", t.services, t.logins);
    await vi.waitFor(() => expect(t.asked).toHaveLength(1));
    const shown = t.updates.length;
    for (const end of t.logins.values()) end();
    t.session.close();
    expect(t.updates).toHaveLength(shown);
    expect(t.asked[0]!.signal?.aborted).toBe(true);
    expect(t.leftBehind()).toEqual({ threadListeners: 0, exitListeners: 0, logins: 0, timers: 0 });
  });

  it("another attempt's end is not this one's; this one's success waits for the server to start again", async () => {
    const t = setUp();
    await mcpLoginText(t.session, "locked", t.services, t.logins);
    t.notify("mcpServer/oauthLogin/completed", {
      name: "locked",
      threadId: "t1",
      loginId: "OTHER",
      success: false,
      error: "not this one",
    });
    t.notify("mcpServer/oauthLogin/completed", { name: "locked", threadId: "t1", loginId: "L1", success: true });
    await t.session.flush();
    expect(t.card().status).toBe("in_progress");
    t.notify("mcpServer/startupStatus/updated", {
      threadId: "t1",
      name: "locked",
      status: "starting",
      error: null,
      failureReason: null,
    });
    t.notify("mcpServer/startupStatus/updated", {
      threadId: "t1",
      name: "locked",
      status: "ready",
      error: null,
      failureReason: null,
    });
    await t.session.flush();
    expect(t.card()).toEqual({ status: "completed", text: "Signed in to locked; it is connected." });
    expect(t.leftBehind()).toEqual({ threadListeners: 0, exitListeners: 0, logins: 0, timers: 0 });
  });

  it("a second sign-in to the same server replaces the first", async () => {
    const t = setUp();
    await mcpLoginText(t.session, "locked", t.services, t.logins);
    await mcpLoginText(t.session, "locked", t.services, t.logins);
    await t.session.flush();
    expect(t.updates.filter((u) => u.sessionUpdate === "tool_call_update")).toEqual([
      expect.objectContaining({
        status: "failed",
        content: [
          expect.objectContaining({ content: { type: "text", text: "Replaced by a newer sign-in to this server." } }),
        ],
      }),
    ]);
    expect(t.leftBehind()).toEqual({ threadListeners: 1, exitListeners: 1, logins: 1, timers: 1 });
  });
});
