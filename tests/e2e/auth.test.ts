// Issue 13: signing in and out from the editor. Methods offered only where they can work; an API
// key from the editor; logout (and /logout) takes effect at once; a terminal login (the bundled
// codex's, run by the editor) is picked up by the running agent without a restart.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { DIST_BIN, startAdapter, type Adapter } from "../support/adapter.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

/** Codex talking to OpenAI itself (not the fake provider): it needs an account. No request is ever sent. */
const OPENAI = { CODEX_ACP_CODEX_ARGS: '-c model_provider="openai"' };
const ids = (init: acp.InitializeResponse) => (init.authMethods ?? []).map((m) => m.id);
const authRequired = (p: Promise<unknown>) => expect(p).rejects.toMatchObject({ code: -32000 });

describe("sign-in methods", () => {
  it("only those that can work: no browser without a display, device code with URL forms, terminal methods with terminal auth", async () => {
    adapter = await startAdapter({ env: { NO_BROWSER: "1" } });
    const plain = await adapter.initialize({});
    expect(ids(plain)).toEqual(["openai-api-key", "codex-login"]);
    expect(plain.agentCapabilities?.auth).toEqual({ logout: {}, status: {} });
    await adapter.close();

    adapter = await startAdapter({ env: { DISPLAY: ":0", NO_BROWSER: "", SSH_CONNECTION: "", SSH_TTY: "" } });
    const rich = await adapter.initialize({ elicitation: { url: {} }, auth: { terminal: true } });
    expect(ids(rich)).toEqual(["openai-api-key", "chatgpt", "chatgpt-device-code", "codex-login-terminal", "codex-login-terminal-device-code", "codex-login"]);
    expect(rich.authMethods?.find((m) => m.id === "codex-login-terminal")).toMatchObject({ type: "terminal", args: ["login"] });
    expect(rich.authMethods?.find((m) => m.id === "codex-login-terminal-device-code")).toMatchObject({ type: "terminal", args: ["login", "--device-auth"] });
  });
});

describe("signing in and out", () => {
  it("an API key from the editor signs in; logout signs out and the next session asks again", async () => {
    adapter = await startAdapter({ env: OPENAI });
    await adapter.initialize({});
    await authRequired(adapter.newSession());
    await adapter.agent.request(acp.methods.agent.authenticate, { methodId: "openai-api-key", _meta: { "api-key": { apiKey: "sk-test-from-editor" } } });
    await adapter.newSession();
    expect(await adapter.agent.request(acp.methods.agent.logout, {})).toEqual({});
    await authRequired(adapter.newSession());
    // The key never reaches the logs.
    expect(adapter.stderr()).not.toContain("sk-test-from-editor");
  });

  it("a key in the agent's environment signs in through the API-key method, not by itself (Codex's app-server does not read it)", async () => {
    adapter = await startAdapter({ env: { ...OPENAI, OPENAI_API_KEY: "sk-test-from-env" } });
    await adapter.initialize({});
    await authRequired(adapter.newSession());
    await adapter.agent.request(acp.methods.agent.authenticate, { methodId: "openai-api-key" });
    await adapter.newSession();
    expect(adapter.stderr()).not.toContain("sk-test-from-env");
  });

  it("/logout signs out from a session", async () => {
    adapter = await startAdapter({ env: OPENAI });
    await adapter.initialize({});
    await adapter.agent.request(acp.methods.agent.authenticate, { methodId: "openai-api-key", _meta: { "api-key": { apiKey: "sk-test" } } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "/logout")).stopReason).toBe("end_turn");
    await authRequired(adapter.newSession());
  });

  it("a terminal method is refused by authenticate (the editor runs it)", async () => {
    adapter = await startAdapter();
    await adapter.initialize({ auth: { terminal: true } });
    await expect(adapter.agent.request(acp.methods.agent.authenticate, { methodId: "codex-login-terminal" })).rejects.toMatchObject({ code: -32602 });
  });

  it("`codex-cli-acp login` (what the terminal method runs) signs in with the bundled codex; the running agent picks it up", async () => {
    adapter = await startAdapter({ env: OPENAI });
    await adapter.initialize({ auth: { terminal: true } });
    await authRequired(adapter.newSession());
    const login = spawn(process.execPath, [DIST_BIN, "login", "--with-api-key"], { env: { ...process.env, ...adapter.home.env, OPENAI_API_KEY: "", CODEX_API_KEY: "" }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    login.stdout.on("data", (c: Buffer) => (out += c.toString()));
    login.stderr.on("data", (c: Buffer) => (out += c.toString()));
    login.stdin.end("sk-test-terminal\n");
    const code = await new Promise<number | null>((r) => login.on("exit", r));
    expect(code, out).toBe(0);
    const { sessionId } = await adapter.newSession();
    expect(sessionId).toBeTruthy();
  });
});
