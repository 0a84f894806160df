// Issue 28: sign-in that clients written for the other Codex adapters use unchanged, and sign-in
// state that stays honest during a session. The method ids the official adapter
// (agentclientprotocol/codex-acp) and Zed's (zed-industries/codex-acp) advertise are accepted;
// DEFAULT_AUTH_REQUEST signs in without an authenticate call; ACP's unstable `auth/status` and
// `auth/status_update` report the account; a key refused in the middle of a session (HTTP 401)
// is ACP's auth-required on that prompt, and the session goes on after the next sign-in.
import { mkdtemp, readFile, writeFile, chmod, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as acp from "@agentclientprotocol/sdk";
import type { AuthStatusResponse } from "@agentclientprotocol/sdk/unstable";
import { startAdapter, type Adapter, type AdapterOptions } from "../support/adapter.js";
import { FAKE_SIGNED_IN_PROVIDER, textResponse } from "../support/fake-model.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Codex talking to the fake model as a provider that needs an OpenAI sign-in: each request carries the signed-in key. */
const SIGNED_IN_PROVIDER = { CODEX_ACP_CODEX_ARGS: `-c model_provider="${FAKE_SIGNED_IN_PROVIDER}"` };
const authRequired = (p: Promise<unknown>) => expect(p).rejects.toMatchObject({ code: -32000 });
const authenticate = (methodId: string, _meta?: Record<string, unknown>) =>
  adapter!.agent.request(acp.methods.agent.authenticate, { methodId, ...(_meta ? { _meta } : {}) });
/** The key of the model request `index` (1-based; default the last one). */
const keyUsed = (index?: number): string | undefined => {
  const requests = adapter!.fake.requests;
  return requests[(index ?? requests.length) - 1]?.headers.authorization?.replace(/^Bearer /, "");
};
const authStatus = () => adapter!.agent.request<AuthStatusResponse>("auth/status", {});
/** The ACP error a request was answered with. */
async function refusalOf(request: Promise<unknown>): Promise<acp.RequestError & { data?: Record<string, unknown> }> {
  const err = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof acp.RequestError)) throw new Error(`expected an ACP error, got ${String(err)}`);
  return err as acp.RequestError & { data?: Record<string, unknown> };
}

const statusSchema = z.looseObject({
  state: z.string(),
  accounts: z.array(z.looseObject({ label: z.string() })).optional(),
});
/** An adapter whose client keeps every `auth/status_update` it hears. */
async function withStatusUpdates(
  opts: AdapterOptions,
): Promise<{ adapter: Adapter; updates: Array<z.infer<typeof statusSchema>> }> {
  const updates: Array<z.infer<typeof statusSchema>> = [];
  const started = await startAdapter({
    ...opts,
    setupClient: (app) =>
      app.onNotification("auth/status_update", statusSchema, ({ params }) => void updates.push(params)),
  });
  return { adapter: started, updates };
}

describe("the other adapters' method ids", () => {
  it("are never advertised: a client lists each method once", async () => {
    adapter = await startAdapter({ env: { NO_BROWSER: "", DISPLAY: ":0", SSH_CONNECTION: "", SSH_TTY: "" } });
    const init = await adapter.initialize({ elicitation: { url: {} }, auth: { terminal: true } });
    const ids = (init.authMethods ?? []).map((m) => m.id);
    expect(ids).toContain("chatgpt-device-code");
    for (const alias of ["api-key", "chat-gpt", "chat-gpt-device-code", "codex-api-key"])
      expect(ids).not.toContain(alias);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("`api-key` (the official adapter's): the editor's key signs in, and the model is called with it", async () => {
    adapter = await startAdapter({ env: SIGNED_IN_PROVIDER });
    await adapter.initialize({});
    await authRequired(adapter.newSession());
    await authenticate("api-key", { "api-key": { apiKey: "sk-official-editor-key" } });
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
    expect(keyUsed()).toBe("sk-official-editor-key");
    expect(adapter.stderr()).not.toContain("sk-official-editor-key");
  });

  it("`api-key` without the editor's key: CODEX_API_KEY first, as the official adapter reads it", async () => {
    adapter = await startAdapter({
      env: { ...SIGNED_IN_PROVIDER, CODEX_API_KEY: "sk-codex-env", OPENAI_API_KEY: "sk-openai-env" },
    });
    await adapter.initialize({});
    await authenticate("api-key");
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "hi");
    expect(keyUsed()).toBe("sk-codex-env");
  });

  it("`codex-api-key` (Zed's) signs in with CODEX_API_KEY, and says so when it is not set", async () => {
    adapter = await startAdapter({ env: { ...SIGNED_IN_PROVIDER, OPENAI_API_KEY: "sk-openai-env" } });
    await adapter.initialize({});
    await expect(authenticate("codex-api-key")).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining("CODEX_API_KEY"),
    });
    await adapter.close();

    adapter = await startAdapter({
      env: { ...SIGNED_IN_PROVIDER, CODEX_API_KEY: "sk-zed-codex-env", OPENAI_API_KEY: "sk-openai-env" },
    });
    await adapter.initialize({});
    await authenticate("codex-api-key");
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "hi");
    expect(keyUsed()).toBe("sk-zed-codex-env");
  });

  it("`chat-gpt` starts Codex's browser sign-in: the page opened is Codex's", async () => {
    // A stand-in for the platform's opener, first on PATH: it writes down the address it was given.
    const bin = await mkdtemp(path.join(os.tmpdir(), "cca-opener-"));
    scratch.push(bin);
    const opened = path.join(bin, "opened.txt");
    await writeFile(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    await chmod(path.join(bin, "xdg-open"), 0o755);
    // A display: without one the browser sign-in is refused before it starts (tests/e2e/auth.test.ts).
    adapter = await startAdapter({
      env: { ...SIGNED_IN_PROVIDER, DISPLAY: ":0", NO_BROWSER: "", PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    await adapter.initialize({});
    const stop = new AbortController();
    const signingIn = adapter.agent.request(
      acp.methods.agent.authenticate,
      { methodId: "chat-gpt" },
      { cancellationSignal: stop.signal },
    );
    signingIn.catch(() => undefined);
    await waitFor(
      async () => (await readFile(opened, "utf8").catch(() => "")).length > 0,
      "the sign-in page to be opened",
    );
    expect(new URL(await readFile(opened, "utf8")).origin).toBe("https://auth.openai.com");
    stop.abort();
    await waitFor(() => adapter!.stderr().includes("The sign-in was cancelled"), "the cancel to end the sign-in");
  });

  it("`chat-gpt-device-code` is the device-code sign-in, refused before it starts for a client that cannot show its page", async () => {
    adapter = await startAdapter({ env: SIGNED_IN_PROVIDER });
    await adapter.initialize({});
    await expect(authenticate("chat-gpt-device-code")).rejects.toMatchObject({
      message: expect.stringContaining("URL elicitation"),
    });
  });

  it("an unknown id is invalid params naming what is accepted", async () => {
    adapter = await startAdapter();
    await adapter.initialize({});
    const refused = await refusalOf(authenticate("gateway"));
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining("gateway") });
    expect(refused.data?.accepted).toEqual(
      expect.arrayContaining([
        "openai-api-key",
        "chatgpt",
        "codex-login",
        "api-key",
        "chat-gpt",
        "chat-gpt-device-code",
        "codex-api-key",
      ]),
    );
  });
});

describe("DEFAULT_AUTH_REQUEST", () => {
  it("signs in when a session needs it, without an authenticate call", async () => {
    const request = JSON.stringify({ methodId: "api-key", _meta: { "api-key": { apiKey: "sk-default-request" } } });
    adapter = await startAdapter({ env: { ...SIGNED_IN_PROVIDER, DEFAULT_AUTH_REQUEST: request } });
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
    expect(keyUsed()).toBe("sk-default-request");
    expect(adapter.stderr()).not.toContain("sk-default-request");
  });

  it("a bad value is a clear error in the log and on session/new, never a crash", async () => {
    for (const bad of [
      "{not json sk-in-a-broken-value",
      JSON.stringify({ methodId: "gateway" }),
      JSON.stringify({ methodId: "codex-login-terminal" }),
      JSON.stringify({ method: "api-key" }),
    ]) {
      adapter = await startAdapter({ env: { ...SIGNED_IN_PROVIDER, DEFAULT_AUTH_REQUEST: bad } });
      await adapter.initialize({});
      await expect(adapter.newSession(), bad).rejects.toMatchObject({
        code: -32000,
        message: expect.stringContaining("DEFAULT_AUTH_REQUEST"),
      });
      expect(adapter.stderr(), bad).toMatch(/DEFAULT_AUTH_REQUEST/);
      expect(adapter.stderr()).not.toContain("sk-in-a-broken-value");
      // Still serving: a sign-in by hand works.
      await authenticate("openai-api-key", { "api-key": { apiKey: "sk-by-hand" } });
      await adapter.newSession();
      await adapter.close();
      adapter = undefined;
    }
  });
});

describe("auth/status", () => {
  it("is advertised, answers the account, and an update follows each sign-in and sign-out; no key is ever sent", async () => {
    const started = await withStatusUpdates({ env: SIGNED_IN_PROVIDER });
    adapter = started.adapter;
    const init = await adapter.initialize({});
    expect(init.agentCapabilities?.auth).toEqual({ logout: {}, status: {} });
    expect(await authStatus()).toEqual({ state: "unauthenticated" });

    await authenticate("openai-api-key", { "api-key": { apiKey: "sk-status-key" } });
    await waitFor(
      () => started.updates.length === 1,
      () => `an auth/status_update after the sign-in (got ${JSON.stringify(started.updates)})`,
    );
    expect(started.updates[0]).toEqual({
      state: "authenticated",
      accounts: [{ label: "OpenAI API key", active: true }],
    });
    expect(await authStatus()).toEqual(started.updates[0]);

    await adapter.agent.request(acp.methods.agent.logout, {});
    await waitFor(() => started.updates.length === 2, "an auth/status_update after the sign-out");
    expect(started.updates[1]).toEqual({ state: "unauthenticated" });
    expect(adapter.stdoutLines.join("\n")).not.toContain("sk-status-key");
    expect(adapter.stderr()).not.toContain("sk-status-key");
  });

  it("a provider that needs no sign-in is not_required", async () => {
    adapter = await startAdapter();
    await adapter.initialize({});
    expect(await authStatus()).toEqual({ state: "not_required" });
  });
});

describe("a login refused in the middle of a session", () => {
  it("is auth-required on that prompt; after a new sign-in the same session goes on", async () => {
    const started = await withStatusUpdates({ env: SIGNED_IN_PROVIDER });
    adapter = started.adapter;
    await adapter.initialize({});
    await authenticate("openai-api-key", { "api-key": { apiKey: "sk-soon-revoked-wxyz" } });
    const { sessionId } = await adapter.newSession();
    adapter.fake.enqueue(textResponse("first answer"), textResponse("after signing in again"));
    expect((await adapter.prompt(sessionId, "one")).stopReason).toBe("end_turn");
    expect(await authStatus()).toMatchObject({ state: "authenticated" });

    adapter.fake.refuseKey("sk-soon-revoked-wxyz");
    const error = await refusalOf(adapter.prompt(sessionId, "two"));
    expect(error.code).toBe(-32000);
    expect(error.data?.authMethods).toContain("openai-api-key");
    expect(error.message).toMatch(/401/);
    expect(error.message).not.toContain("sk-soon");
    expect(error.message).not.toContain("wxyz");
    // Honest until the next sign-in: the status says so, and so does a new session.
    await waitFor(
      () => started.updates.some((u) => u.state === "unauthenticated"),
      "an auth/status_update saying the login no longer works",
    );
    expect(await authStatus()).toMatchObject({ state: "unauthenticated" });
    await authRequired(adapter.newSession());

    await authenticate("openai-api-key", { "api-key": { apiKey: "sk-new-key" } });
    expect(await authStatus()).toMatchObject({ state: "authenticated" });
    expect((await adapter.prompt(sessionId, "three")).stopReason).toBe("end_turn");
    expect(keyUsed()).toBe("sk-new-key");
    expect(adapter.fake.requests.at(-1)?.scripted).toEqual(textResponse("after signing in again"));
  });

  it("a refusal that passes (the provider takes the key again) is over with the next turn that works", async () => {
    const started = await withStatusUpdates({ env: SIGNED_IN_PROVIDER });
    adapter = started.adapter;
    await adapter.initialize({});
    await authenticate("openai-api-key", { "api-key": { apiKey: "sk-flaky-key" } });
    const { sessionId } = await adapter.newSession();
    expect(await authStatus()).toMatchObject({ state: "authenticated" });
    const takeBack = adapter.fake.refuseKey("sk-flaky-key");
    await authRequired(adapter.prompt(sessionId, "one"));
    await waitFor(
      () => started.updates.at(-1)?.state === "unauthenticated",
      "an auth/status_update saying the login no longer works",
    );
    takeBack();
    expect((await adapter.prompt(sessionId, "two")).stopReason).toBe("end_turn");
    await waitFor(
      () => started.updates.at(-1)?.state === "authenticated",
      "an auth/status_update saying it works again",
    );
    await adapter.newSession();
  });
});
