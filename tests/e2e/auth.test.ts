// Issue 13: signing in and out from the editor. Methods offered only where they can work; an API
// key from the editor; logout (and /logout) takes effect at once; a terminal login (the bundled
// codex's, run by the editor) is picked up by the running agent without a restart.
import { spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { DIST_BIN, startAdapter, type Adapter } from "../support/adapter.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

/**
 * A stand-in for the platform's opener (xdg-open), first on PATH: it writes down each address it
 * is given, and exits with `exitCode` (xdg-open's 3: no program to open it with).
 */
async function fakeOpener(exitCode = 0): Promise<{ env: Record<string, string>; opened: () => Promise<string> }> {
  const bin = await mkdtemp(path.join(os.tmpdir(), "cca-opener-"));
  scratch.push(bin);
  const log = path.join(bin, "opened.txt");
  await writeFile(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\nexit ${exitCode}\n`);
  await chmod(path.join(bin, "xdg-open"), 0o755);
  return { env: { PATH: `${bin}:${process.env.PATH ?? ""}` }, opened: () => readFile(log, "utf8").catch(() => "") };
}
/** The ACP error a request was answered with. */
async function refusalOf(request: Promise<unknown>): Promise<acp.RequestError & { data?: Record<string, unknown> }> {
  const err = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof acp.RequestError)) throw new Error(`expected an ACP error, got ${String(err)}`);
  return err as acp.RequestError & { data?: Record<string, unknown> };
}
/** No display, as on a headless Linux box or over SSH without X forwarding. */
const HEADLESS = { DISPLAY: "", WAYLAND_DISPLAY: "", NO_BROWSER: "" };
/** A display (the browser sign-in starts; the opener is the stand-in). */
const DESKTOP = { DISPLAY: ":0", NO_BROWSER: "", SSH_CONNECTION: "", SSH_TTY: "" };
/** Codex answered our account/login/cancel: its sign-in (and the local server it runs for it) is over. */
const cancelledInCodex = (): boolean =>
  adapter!
    .stderr()
    .split("\n")
    .some((line) => line.includes("Codex's sign-in cancelled") && line.includes('"status":"canceled"'));
const unix = process.platform !== "darwin" && process.platform !== "win32";

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
    expect(ids(rich)).toEqual([
      "openai-api-key",
      "chatgpt",
      "chatgpt-device-code",
      "codex-login-terminal",
      "codex-login-terminal-device-code",
      "codex-login",
    ]);
    expect(rich.authMethods?.find((m) => m.id === "codex-login-terminal")).toMatchObject({
      type: "terminal",
      args: ["login"],
    });
    expect(rich.authMethods?.find((m) => m.id === "codex-login-terminal-device-code")).toMatchObject({
      type: "terminal",
      args: ["login", "--device-auth"],
    });
  });
});

describe("signing in and out", () => {
  it("an API key from the editor signs in; logout signs out and the next session asks again", async () => {
    adapter = await startAdapter({ env: OPENAI });
    await adapter.initialize({});
    await authRequired(adapter.newSession());
    await adapter.agent.request(acp.methods.agent.authenticate, {
      methodId: "openai-api-key",
      _meta: { "api-key": { apiKey: "sk-test-from-editor" } },
    });
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
    await adapter.agent.request(acp.methods.agent.authenticate, {
      methodId: "openai-api-key",
      _meta: { "api-key": { apiKey: "sk-test" } },
    });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "/logout")).stopReason).toBe("end_turn");
    await authRequired(adapter.newSession());
  });

  it("a terminal method is refused by authenticate (the editor runs it)", async () => {
    adapter = await startAdapter();
    await adapter.initialize({ auth: { terminal: true } });
    await expect(
      adapter.agent.request(acp.methods.agent.authenticate, { methodId: "codex-login-terminal" }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("`codex-cli-acp login` (what the terminal method runs) signs in with the bundled codex; the running agent picks it up", async () => {
    adapter = await startAdapter({ env: OPENAI });
    await adapter.initialize({ auth: { terminal: true } });
    await authRequired(adapter.newSession());
    const login = spawn(process.execPath, [DIST_BIN, "login", "--with-api-key"], {
      env: { ...process.env, ...adapter.home.env, OPENAI_API_KEY: "", CODEX_API_KEY: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
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

describe("the browser sign-in never leaves the client waiting (issue 49)", () => {
  // Emacs agent-shell sends `authenticate {methodId: "chatgpt"}` right after initialize, advertised or not.
  it.skipIf(!unix)(
    "without a display, `chatgpt` is refused at once, naming what works here; nothing is opened or started",
    async () => {
      const opener = await fakeOpener();
      adapter = await startAdapter({ env: { ...HEADLESS, ...opener.env } });
      await adapter.initialize({ elicitation: { url: {} } });
      const refused = await refusalOf(adapter.agent.request(acp.methods.agent.authenticate, { methodId: "chatgpt" }));
      expect(refused.code).toBe(-32000);
      expect(refused.message).toMatch(/no display/i);
      for (const way of [
        "chatgpt-device-code",
        "openai-api-key",
        "OPENAI_API_KEY",
        "codex-cli-acp login --device-auth",
      ])
        expect(refused.message).toContain(way);
      expect(refused.data?.authMethods).toEqual(["openai-api-key", "chatgpt-device-code", "codex-login"]);
      expect(await opener.opened()).toBe("");
      expect(adapter.stderr()).not.toContain("browser sign-in started");

      // A client without URL forms is not offered the device code it could not show (the official adapter's id too).
      await adapter.close();
      adapter = await startAdapter({ env: { ...HEADLESS, ...opener.env } });
      await adapter.initialize({});
      const plain = await refusalOf(adapter.agent.request(acp.methods.agent.authenticate, { methodId: "chat-gpt" }));
      expect(plain.message).not.toContain("chatgpt-device-code");
      expect(plain.message).toContain("codex-cli-acp login --device-auth");
    },
  );

  it.skipIf(!unix)(
    "an opener that fails (xdg-open finds no browser) is an error at once, and Codex's sign-in is cancelled",
    async () => {
      const opener = await fakeOpener(3);
      adapter = await startAdapter({ env: { ...DESKTOP, ...opener.env } });
      await adapter.initialize({});
      const refused = await refusalOf(adapter.agent.request(acp.methods.agent.authenticate, { methodId: "chatgpt" }));
      expect(refused.code).toBe(-32000);
      expect(refused.message).toMatch(/could not open a browser/i);
      expect(refused.message).toContain("codex-cli-acp login --device-auth");
      expect(new URL((await opener.opened()).trim()).origin).toBe("https://auth.openai.com");
      await waitFor(() => cancelledInCodex(), "codex to confirm the sign-in was cancelled");
    },
  );

  it.skipIf(!unix)(
    "one that does not complete within CODEX_ACP_SIGN_IN_TIMEOUT_MS is answered with an error, and Codex's sign-in is cancelled",
    async () => {
      const opener = await fakeOpener();
      adapter = await startAdapter({ env: { ...DESKTOP, ...opener.env, CODEX_ACP_SIGN_IN_TIMEOUT_MS: "1500" } });
      await adapter.initialize({});
      const refused = await refusalOf(adapter.agent.request(acp.methods.agent.authenticate, { methodId: "chatgpt" }));
      expect(refused.code).toBe(-32000);
      expect(refused.message).toMatch(/did not complete within 1\.5 s/);
      expect(refused.message).toContain("CODEX_ACP_SIGN_IN_TIMEOUT_MS");
      expect(await opener.opened()).toContain("https://auth.openai.com");
      await waitFor(() => cancelledInCodex(), "codex to confirm the sign-in was cancelled");
    },
  );

  it.skipIf(!unix)(
    "a browser sign-in another Codex on this machine takes over (its login server's fixed local port) is refused saying so",
    async () => {
      const first = await fakeOpener();
      adapter = await startAdapter({ env: { ...DESKTOP, ...first.env } });
      await adapter.initialize({});
      const signingIn = refusalOf(adapter.agent.request(acp.methods.agent.authenticate, { methodId: "chatgpt" }));
      await waitFor(async () => (await first.opened()).length > 0, "the first sign-in page to be opened");
      // A second editor's agent signs in too: its codex cancels the first login server to take the port.
      const second = await fakeOpener();
      const other = await startAdapter({ env: { ...DESKTOP, ...second.env } });
      try {
        await other.initialize({});
        const stop = new AbortController();
        const otherSigningIn = refusalOf(
          other.agent.request(
            acp.methods.agent.authenticate,
            { methodId: "chatgpt" },
            { cancellationSignal: stop.signal },
          ),
        );
        const refused = await signingIn;
        expect(refused.code).toBe(-32000);
        expect(refused.message).toMatch(/another Codex sign-in on this machine/);
        stop.abort();
        await otherSigningIn;
      } finally {
        await other.close();
      }
    },
  );

  it.skipIf(!unix)("a cancel from the client ($/cancel_request) ends it, and Codex's sign-in with it", async () => {
    const opener = await fakeOpener();
    adapter = await startAdapter({ env: { ...DESKTOP, ...opener.env } });
    await adapter.initialize({});
    const stop = new AbortController();
    const signingIn = refusalOf(
      adapter.agent.request(
        acp.methods.agent.authenticate,
        { methodId: "chatgpt" },
        { cancellationSignal: stop.signal },
      ),
    );
    await waitFor(async () => (await opener.opened()).length > 0, "the sign-in page to be opened");
    stop.abort();
    expect((await signingIn).code).toBeDefined();
    await waitFor(() => cancelledInCodex(), "codex to confirm the sign-in was cancelled");
  });
});
