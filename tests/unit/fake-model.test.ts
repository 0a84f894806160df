// HTTP-level tests of the fake Responses-API model (no codex involved).
import { afterEach, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import path from "node:path";
import os from "node:os";
import {
  startFakeModel,
  textResponse,
  toolCallResponse,
  applyPatch,
  httpError,
  rateLimitHeaders,
  parseFakeModelScript,
  splitDeltas,
  type FakeModel,
} from "../support/fake-model.js";
import { createCodexHome, renderConfigToml } from "../support/codex-home.js";

const open: FakeModel[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

async function start(...args: Parameters<typeof startFakeModel>): Promise<FakeModel> {
  const m = await startFakeModel(...args);
  open.push(m);
  return m;
}

type Ev = { type: string; [k: string]: any };

/** Parse an SSE body into its data events, checking every `event:` line matches its data's type. */
function parseSse(text: string): Ev[] {
  const out: Ev[] = [];
  for (const frame of text.split("\n\n")) {
    if (!frame.trim()) continue;
    const lines = frame.split("\n");
    const eventLine = lines.find((l) => l.startsWith("event: "));
    const dataLine = lines.find((l) => l.startsWith("data: "));
    expect(dataLine, frame).toBeDefined();
    const ev = JSON.parse(dataLine!.slice(6)) as Ev;
    if (eventLine) expect(eventLine.slice(7)).toBe(ev.type);
    out.push(ev);
  }
  return out;
}

async function post(model: FakeModel, body: unknown = { model: "fake-model", stream: true, input: [] }) {
  return fetch(`${model.url}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer fake-key" },
    body: JSON.stringify(body),
  });
}

describe("fake model server", () => {
  it("listens on 127.0.0.1 with a /v1 base url", async () => {
    const m = await start();
    expect(m.url).toBe(`http://127.0.0.1:${m.port}/v1`);
    expect(m.port).toBeGreaterThan(0);
  });

  it("streams a text response as created / added / deltas / done / completed", async () => {
    const m = await start([
      textResponse("Hello brave new world", { usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 } }),
    ]);
    const res = await post(m);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(await res.text());
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    const added = types.indexOf("response.output_item.added");
    const firstDelta = types.indexOf("response.output_text.delta");
    const done = types.indexOf("response.output_item.done");
    expect(added).toBeGreaterThan(0);
    expect(firstDelta).toBeGreaterThan(added);
    expect(done).toBeGreaterThan(types.lastIndexOf("response.output_text.delta"));

    const deltas = events.filter((e) => e.type === "response.output_text.delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.delta).join("")).toBe("Hello brave new world");
    const itemId = events[added]!.item.id;
    expect(deltas.every((d) => d.item_id === itemId)).toBe(true);
    expect(events[done]!.item).toMatchObject({
      type: "message",
      id: itemId,
      role: "assistant",
      content: [{ type: "output_text", text: "Hello brave new world" }],
    });
    expect(events.at(-1)!.response.usage).toEqual({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
    expect(events.at(-1)!.response.id).toBe(events[0]!.response.id);
  });

  it("honours explicit and counted delta splits", async () => {
    const m = await start([
      textResponse("abcdef", { deltas: ["ab", "c", "def"] }),
      textResponse("abcdefgh", { deltas: 4 }),
    ]);
    const a = parseSse(await (await post(m)).text()).filter((e) => e.type === "response.output_text.delta");
    expect(a.map((e) => e.delta)).toEqual(["ab", "c", "def"]);
    const b = parseSse(await (await post(m)).text()).filter((e) => e.type === "response.output_text.delta");
    expect(b.map((e) => e.delta)).toEqual(["ab", "cd", "ef", "gh"]);
    expect(splitDeltas("one two  three")).toEqual(["one ", "two  ", "three"]);
    expect(() => parseFakeModelScript([{ items: [{ type: "message", text: "abc", deltas: ["a", "b"] }] }])).toThrow(
      /join/,
    );
  });

  it("streams reasoning summaries", async () => {
    const m = await start([textResponse("answer", { reasoning: "let me think" })]);
    const events = parseSse(await (await post(m)).text());
    const types = events.map((e) => e.type);
    expect(types).toContain("response.reasoning_summary_part.added");
    const deltas = events.filter((e) => e.type === "response.reasoning_summary_text.delta");
    expect(deltas.map((d) => d.delta).join("")).toBe("let me think");
    const reasoningDone = events.find((e) => e.type === "response.output_item.done" && e.item.type === "reasoning");
    expect(reasoningDone!.item.summary).toEqual([{ type: "summary_text", text: "let me think" }]);
    // the reasoning item comes first, the message second
    const doneItems = events.filter((e) => e.type === "response.output_item.done");
    expect(doneItems.map((e) => [e.output_index, e.item.type])).toEqual([
      [0, "reasoning"],
      [1, "message"],
    ]);
  });

  it("emits function and custom tool calls as output_item.done items", async () => {
    const m = await start([
      toolCallResponse("exec_command", { cmd: "echo hi" }, { callId: "c1" }),
      {
        items: [
          { type: "function_call", name: "read", namespace: "mcp__files", arguments: '{"path":"/x"}' },
          applyPatch("*** Begin Patch\n*** End Patch", { callId: "p1" }),
        ],
      },
    ]);
    const first = parseSse(await (await post(m)).text()).filter((e) => e.type === "response.output_item.done");
    expect(first).toHaveLength(1);
    expect(first[0]!.item).toMatchObject({ type: "function_call", call_id: "c1", name: "exec_command" });
    expect(JSON.parse(first[0]!.item.arguments)).toEqual({ cmd: "echo hi" });
    expect(first[0]!.item.namespace).toBeUndefined();

    const second = parseSse(await (await post(m)).text());
    const items = second.filter((e) => e.type === "response.output_item.done").map((e) => e.item);
    expect(items[0]).toMatchObject({
      type: "function_call",
      namespace: "mcp__files",
      name: "read",
      arguments: '{"path":"/x"}',
    });
    expect(items[0].call_id).toMatch(/\S/);
    expect(items[1]).toMatchObject({
      type: "custom_tool_call",
      call_id: "p1",
      name: "apply_patch",
      input: "*** Begin Patch\n*** End Patch",
    });
    expect(second.at(-1)!.type).toBe("response.completed");
  });

  it("answers with an HTTP error status and a JSON error body", async () => {
    const m = await start([httpError(500, "model exploded")]);
    const res = await post(m);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: { message: "model exploded", type: "server_error", code: null, param: null },
    });
  });

  it("refuses a revoked key as OpenAI does (401, invalid_api_key, the key's ends only), leaving the script for the next key", async () => {
    const m = await start([textResponse("for the good key")]);
    m.refuseKey("fake-key");
    const refused = await post(m);
    expect(refused.status).toBe(401);
    const body = (await refused.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({
      type: "invalid_request_error",
      code: "invalid_api_key",
      message: expect.stringContaining("Incorrect API key provided: fak*-key"),
    });
    expect(m.requests[0]).toMatchObject({ refused: true, scripted: undefined });
    expect(m.pending()).toBe(1);
    const other = await fetch(`${m.url}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer another-key" },
      body: "{}",
    });
    expect(other.status).toBe(200);
    expect(
      parseSse(await other.text()).some((e) => e.type === "response.output_text.delta" && e.delta.includes("good")),
    ).toBe(true);
  });

  it("sends a response's scripted headers (Codex's rate-limit headers, built by rateLimitHeaders) with the stream or the error", async () => {
    const headers = rateLimitHeaders({
      primary: { usedPercent: 92.5, windowMinutes: 300, resetAt: 4102444800 },
      secondary: { usedPercent: 40, windowMinutes: 10080 },
      credits: { hasCredits: true, unlimited: false, balance: "12.50" },
    });
    expect(headers).toEqual({
      "x-codex-primary-used-percent": "92.5",
      "x-codex-primary-window-minutes": "300",
      "x-codex-primary-reset-at": "4102444800",
      "x-codex-secondary-used-percent": "40",
      "x-codex-secondary-window-minutes": "10080",
      "x-codex-credits-has-credits": "true",
      "x-codex-credits-unlimited": "false",
      "x-codex-credits-balance": "12.50",
    });
    const m = await start([
      textResponse("hi", { headers }),
      { ...httpError(429, "slow down"), headers: { "x-codex-primary-used-percent": "100" } },
      textResponse("plain"),
    ]);
    const streamed = await post(m);
    expect(streamed.headers.get("x-codex-primary-used-percent")).toBe("92.5");
    expect(streamed.headers.get("x-codex-credits-balance")).toBe("12.50");
    expect(streamed.headers.get("content-type")).toBe("text/event-stream");
    await streamed.text();
    const refused = await post(m);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-codex-primary-used-percent")).toBe("100");
    await refused.text();
    const plain = await post(m);
    expect(plain.headers.get("x-codex-primary-used-percent")).toBeNull();
    await plain.text();
    // Plain JSON (scripts live in transcript headers): a header value must be a string.
    expect(() => parseFakeModelScript([{ headers: { "x-codex-primary-used-percent": 5 } }])).toThrow();
  });

  it("sends response.failed for errorMessage without httpStatus, and no completed for closeEarly", async () => {
    const m = await start([
      { errorMessage: "went wrong" },
      { items: [{ type: "message", text: "x" }], closeEarly: true },
    ]);
    const failed = parseSse(await (await post(m)).text());
    expect(failed.at(-1)).toMatchObject({ type: "response.failed", response: { error: { message: "went wrong" } } });
    const early = parseSse(await (await post(m)).text()).map((e) => e.type);
    expect(early).toContain("response.output_item.done");
    expect(early).not.toContain("response.completed");
    expect(early).not.toContain("response.failed");
  });

  it("keeps a hanging stream open, without response.completed, until close() cuts it", async () => {
    const m = await start([{ items: [{ type: "message", text: "partial" }], hang: true }]);
    const res = await post(m);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("response.output_item.done")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("stream ended early");
      seen += decoder.decode(value, { stream: true });
    }
    // Read on until the stream stops: a stream that did not hang would go on to response.completed
    // and its end, written with the items; this one carries nothing more until close() cuts it.
    const rest = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return "ended";
        seen += decoder.decode(value, { stream: true });
      }
    })();
    await m.close();
    await expect(rest).rejects.toThrow(); // the socket was destroyed under the reader
    expect(parseSse(seen).at(-1)?.type).toBe("response.output_item.done");
  });

  it("close() also cuts a slow (delayed) stream instead of waiting for its end", async () => {
    const m = await start([{ items: [{ type: "message", text: "a b c d e f g h" }], delayMs: 200 }]);
    const res = await post(m);
    expect(res.status).toBe(200);
    const body = res.text().then(
      (text) => ({ ended: text }),
      (err: unknown) => ({ cut: String(err) }),
    );
    await m.close();
    expect(await body).toHaveProperty("cut");
  });

  it("records requests in arrival order and waitForRequests resolves", async () => {
    const m = await start();
    m.enqueue(textResponse("one"), textResponse("two"));
    expect(m.pending()).toBe(2);
    const waiting = m.waitForRequests(2, 5_000);
    const before = performance.timeOrigin + performance.now();
    await (await post(m, { model: "fake-model", input: [{ role: "user", content: "first" }] })).text();
    await (await post(m, { model: "fake-model", input: [{ role: "user", content: "second" }] })).text();
    const reqs = await waiting;
    expect(reqs.map((r) => r.index)).toEqual([1, 2]);
    // Arrival times on the epoch clock, in order (the bench's timeline places them beside the agent's marks).
    expect(reqs[0]!.receivedAt).toBeGreaterThanOrEqual(before);
    expect(reqs[1]!.receivedAt).toBeGreaterThanOrEqual(reqs[0]!.receivedAt);
    expect(reqs[1]!.receivedAt).toBeLessThanOrEqual(performance.timeOrigin + performance.now());
    expect(reqs.map((r) => r.body.input[0].content)).toEqual(["first", "second"]);
    expect(reqs[0]!.path).toBe("/v1/responses");
    expect(reqs[0]!.method).toBe("POST");
    expect(reqs[0]!.headers.authorization).toBe("Bearer fake-key");
    expect(reqs[0]!.scripted?.items?.[0]).toMatchObject({ type: "message", text: "one" });
    expect(m.requests).toHaveLength(2);
    expect(m.pending()).toBe(0);
    await expect(m.waitForRequests(3, 50)).rejects.toThrow(/waited 50 ms for 3 requests, got 2/);
  });

  it('answers "ok" when the queue is empty and 404s unknown paths', async () => {
    const m = await start();
    const events = parseSse(await (await post(m)).text());
    const deltas = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta);
    expect(deltas.join("")).toBe("ok");
    expect(events.at(-1)!.type).toBe("response.completed");
    expect(m.requests[0]!.scripted).toBeUndefined();
    expect((await fetch(`${m.url}/nothing-here`)).status).toBe(404);
    const models = await fetch(`${m.url}/models`);
    expect(models.status).toBe(200);
    expect(await models.json()).toMatchObject({ data: [] });
    expect(m.requests).toHaveLength(1); // only POST /responses is recorded
  });

  it("serves the ChatGPT backend's usage limits once set (GET …/wham/usage), 404 before", async () => {
    const m = await start();
    const usage = `http://127.0.0.1:${m.port}/backend-api/wham/usage`;
    expect((await fetch(usage)).status).toBe(404);
    m.setAccountUsage({ plan_type: "plus", rate_limit: null });
    expect(await (await fetch(usage)).json()).toEqual({ plan_type: "plus", rate_limit: null });
  });

  it("accepts a {responses} script object and rejects malformed scripts", async () => {
    const m = await start({ responses: [textResponse("from object")] });
    const deltas = parseSse(await (await post(m)).text()).filter((e) => e.type === "response.output_text.delta");
    expect(deltas.map((d) => d.delta).join("")).toBe("from object");
    await expect(startFakeModel([{ items: [{ type: "nope" }] }] as never)).rejects.toThrow();
    expect(() => parseFakeModelScript({ responses: [{ httpStatus: 200 }] })).toThrow();
  });
});

describe("createCodexHome", () => {
  it("chatgptSignIn: a made-up sign-in whose backend is the fake model's server, and nothing else reachable", async () => {
    const ch = await createCodexHome({ modelUrl: "http://127.0.0.1:1234/v1", chatgptSignIn: true });
    try {
      const toml = await fs.readFile(ch.configPath, "utf8");
      // A top-level key: before the first table.
      expect(toml.split("\n")[0]).toBe('chatgpt_base_url = "http://127.0.0.1:1234/backend-api/"');
      const auth = JSON.parse(await fs.readFile(path.join(ch.codexHome, "auth.json"), "utf8")) as {
        auth_mode: string;
        tokens: { id_token: string };
      };
      expect(auth.auth_mode).toBe("chatgpt");
      const claims = JSON.parse(Buffer.from(auth.tokens.id_token.split(".")[1]!, "base64url").toString()) as {
        exp: number;
      };
      expect(claims.exp * 1000).toBeGreaterThan(Date.now());
      expect(ch.env).toMatchObject({
        HTTPS_PROXY: "http://127.0.0.1:9",
        HTTP_PROXY: "http://127.0.0.1:9",
        NO_PROXY: "127.0.0.1,localhost",
      });
    } finally {
      await ch.cleanup();
    }
    const plain = await createCodexHome({ modelUrl: "http://127.0.0.1:1234/v1" });
    try {
      expect(await fs.readFile(plain.configPath, "utf8")).not.toContain("chatgpt_base_url");
      expect(plain.env.HTTPS_PROXY).toBeUndefined();
    } finally {
      await plain.cleanup();
    }
  });

  it("writes an offline config, a catalog with fake-model, and hermetic dirs", async () => {
    const ch = await createCodexHome({
      modelUrl: "http://127.0.0.1:1234/v1",
      approvalPolicy: "on-request",
      extraConfig: "[tools.update_plan]\nenabled = true",
    });
    try {
      expect(ch.env.CODEX_HOME).toBe(ch.codexHome);
      expect(ch.env.HOME).toBe(ch.home);
      expect(ch.env.TMPDIR).toBe(ch.tmpdir);
      expect(ch.env.FAKE_API_KEY).toBe("fake-key");
      expect(ch.env.OPENAI_API_KEY).toBe("");
      // TMPDIR must not be a parent of CODEX_HOME
      expect(path.relative(ch.tmpdir, ch.codexHome).startsWith("..")).toBe(true);
      expect(await fs.readdir(ch.home)).toEqual([]);

      const toml = await fs.readFile(path.join(ch.codexHome, "config.toml"), "utf8");
      expect(toml).toContain('model = "fake-model"');
      expect(toml).toContain('model_provider = "fake"');
      expect(toml).toContain('approval_policy = "on-request"');
      expect(toml).toContain('base_url = "http://127.0.0.1:1234/v1"');
      expect(toml).toMatch(/\[features\]\nplugins = false\nshell_snapshot = false/);
      expect(toml).toContain("request_max_retries = 0");
      expect(toml).toContain("stream_max_retries = 0");
      expect(toml).toContain("supports_websockets = false");
      expect(toml).toContain(`model_catalog_json = ${JSON.stringify(ch.modelCatalogPath)}`);
      expect(toml.trimEnd().endsWith("[tools.update_plan]\nenabled = true")).toBe(true);

      const catalog = JSON.parse(await fs.readFile(ch.modelCatalogPath, "utf8")) as { models: any[] };
      const fake = catalog.models.find((m) => m.slug === "fake-model");
      expect(fake).toMatchObject({ supports_search_tool: false, prefer_websockets: false });
      expect(fake.apply_patch_tool_type).toBeTruthy();
      expect(catalog.models.length).toBeGreaterThan(1); // bundled entries kept
      expect(catalog.models.filter((m) => m.slug === "fake-model")).toHaveLength(1);
    } finally {
      await ch.cleanup();
    }
    await expect(fs.stat(ch.base)).rejects.toThrow();
  });

  it("on Windows the temp dir is hermetic too (Codex reads TMP / TEMP there, not TMPDIR); POSIX hosts get no such variables", async () => {
    const win = await createCodexHome({ modelUrl: "http://127.0.0.1:9/v1", platform: "win32" });
    const posix = await createCodexHome({ modelUrl: "http://127.0.0.1:9/v1" });
    try {
      expect(win.env).toMatchObject({ TMP: win.tmpdir, TEMP: win.tmpdir, TMPDIR: win.tmpdir });
      expect(Object.keys(posix.env)).not.toContain("TMP");
      expect(Object.keys(posix.env)).not.toContain("TEMP");
    } finally {
      await win.cleanup();
      await posix.cleanup();
    }
  });

  it("uses a given dir and defaults approval/sandbox", async () => {
    const dir = path.join(os.tmpdir(), `cca-unit-${process.pid}-${Date.now()}`);
    const ch = await createCodexHome({ modelUrl: "http://127.0.0.1:9/v1", dir });
    try {
      expect(ch.codexHome).toBe(path.join(dir, "codex-home"));
      const toml = await fs.readFile(ch.configPath, "utf8");
      // Left to the adapter or Codex, as on a machine whose config.toml does not set them.
      expect(toml).not.toContain("approval_policy");
      expect(toml).not.toContain("sandbox_mode");
    } finally {
      await ch.cleanup();
    }
    expect(renderConfigToml({ modelUrl: "u", modelCatalogPath: '/c"q' })).toContain('model_catalog_json = "/c\\"q"');
  });
});
