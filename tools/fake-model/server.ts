// A scripted fake of the OpenAI Responses API (POST /v1/responses, Server-Sent Events), enough
// for the real `codex` binary to run complete turns offline. Listens on 127.0.0.1 only.
//
// Observed with codex 0.169.0 (app-server, config from ./codex-home.ts):
// - One POST /v1/responses per model sampling step and nothing else: no title generation,
//   memory or compaction requests, and no GET /models (memories are off by default; compaction
//   only happens near the context limit). So every request consumes the next scripted response.
// - HTTP 5xx: codex drops the body and reports its own "high demand" text with
//   codexErrorInfo "internalServerError"; HTTP 4xx: the raw body becomes the turn's error
//   message; 429 reads "exceeded retry limit, last status: 429 Too Many Requests".
// - HTTP 401 (a refused key, refuseKey): codex does not retry; an `error` notification and
//   turn/completed(failed) both carry codexErrorInfo {httpConnectionFailed: {httpStatusCode: 401}}
//   and the body's message; the account stays signed in (account/read still reports it).
// - After turn/interrupt codex leaves the HTTP stream open: hanging streams end only on close().
import http from "node:http";
import type { AddressInfo } from "node:net";
import { log } from "../../src/log/index.js";
import { responseEvents, sseFrame } from "./response-events.js";
import { parseFakeModelScript, type FakeModelScript, type ScriptedResponse } from "./script.js";

export interface RecordedRequest {
  /** 1-based arrival number among POST /v1/responses requests. */
  index: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- The parsed JSON body (undefined when it did not parse): tests read it as loose JSON (body.input.at(-1).content), the shape being what they check
  body: any;
  /** The scripted response that answered it, or undefined for the empty-queue fallback or a refused key. */
  scripted: ScriptedResponse | undefined;
  /** Answered 401 because its bearer key was refused (refuseKey); the queue was left as it was. */
  refused?: true;
  /** When the request reached the server (epoch ms, sub-ms precision): the bench's timeline places it. */
  receivedAt: number;
}

export interface FakeModel {
  /** Base URL for a model provider, e.g. "http://127.0.0.1:PORT/v1". */
  url: string;
  port: number;
  /** Every POST /v1/responses, in arrival order. */
  requests: RecordedRequest[];
  /** Append scripted responses to the queue. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** How many scripted responses are still queued. */
  pending(): number;
  /** Drops what is still queued (left by requests that raced for it); returns how many. */
  discardQueued(): number;
  /**
   * From now on, answers every request made with this API key (`Authorization: Bearer <key>`)
   * with OpenAI's 401 for a wrong or revoked key, without using up a scripted response: a
   * login that expired or was revoked while a session runs. Returns the undo (the key works again).
   */
  refuseKey(apiKey: string): () => void;
  /** What GET …/wham/usage answers (the ChatGPT backend's usage limits; see createCodexHome's chatgptSignIn); 404 until set. */
  setAccountUsage(body: unknown): void;
  /** Resolves with the requests once at least n have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Stops the server, ending hanging streams and open sockets at once. */
  close(): Promise<void>;
}

const FALLBACK: ScriptedResponse = { items: [{ type: "message", text: "ok" }] };

function flatHeaders(req: http.IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(req.headers).flatMap(([k, v]) =>
      v === undefined ? [] : [[k, Array.isArray(v) ? v.join(", ") : v]],
    ),
  );
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Start a fake model. Responses are consumed in order, one per POST /v1/responses; when the queue
 * is empty the answer is a plain "ok" message, so a stray request never hangs a test.
 */
export async function startFakeModel(script?: FakeModelScript | ScriptedResponse[]): Promise<FakeModel> {
  const queue: ScriptedResponse[] = script === undefined ? [] : [...parseFakeModelScript(script).responses];
  const requests: RecordedRequest[] = [];
  const waiters: { n: number; resolve: (r: RecordedRequest[]) => void }[] = [];
  const openResponses = new Set<http.ServerResponse>();
  const refusedKeys = new Set<string>();
  let closed = false;
  let responseCounter = 0;
  let accountUsage: unknown;

  const notify = () => {
    for (const w of [...waiters]) {
      if (requests.length >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(requests.slice());
      }
    }
  };

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      log.warn({ err }, "fake model: handler failed");
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const receivedAt = performance.timeOrigin + performance.now();
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const raw = await readBody(req);
    if (req.method === "POST" && path.endsWith("/responses")) {
      let body: unknown;
      try {
        body = raw.length > 0 ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const refused = bearer !== undefined && refusedKeys.has(bearer);
      // A refused key uses up no scripted response: the script stays for the next good key.
      const scripted = refused ? undefined : queue.shift();
      const record: RecordedRequest = {
        index: requests.length + 1,
        method: req.method,
        path,
        headers: flatHeaders(req),
        body,
        scripted,
        ...(refused ? { refused: true } : {}),
        receivedAt,
      };
      requests.push(record);
      if (!refused && scripted === undefined)
        log.debug({ index: record.index }, 'fake model: queue empty, answering "ok"');
      notify();
      if (refused) answerRefusedKey(bearer, res);
      else await respond(scripted ?? FALLBACK, res);
      return;
    }
    log.debug({ method: req.method, path }, "fake model: unhandled path");
    if (req.method === "GET" && path.endsWith("/wham/usage") && accountUsage !== undefined) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(accountUsage));
      return;
    }
    if (req.method === "GET" && path.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [], models: [] }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ error: { message: `fake model: no route for ${req.method} ${path}`, type: "not_found" } }),
    );
  }

  /** OpenAI's answer to a wrong or revoked key: its message shows the key's ends only, as OpenAI's does. */
  function answerRefusedKey(key: string, res: http.ServerResponse): void {
    const shown = `${key.slice(0, 3)}${"*".repeat(Math.max(0, key.length - 7))}${key.slice(-4)}`;
    const message = `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`;
    res.writeHead(401, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code: "invalid_api_key" } }),
    );
  }

  async function respond(scripted: ScriptedResponse, res: http.ServerResponse): Promise<void> {
    if (scripted.httpStatus !== undefined) {
      if (scripted.delayMs) await sleep(scripted.delayMs);
      const message = scripted.errorMessage ?? `fake model error ${scripted.httpStatus}`;
      res.writeHead(scripted.httpStatus, { ...scripted.headers, "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message, type: "server_error", code: null, param: null } }));
      return;
    }
    responseCounter += 1;
    const { events, terminal } = responseEvents(scripted, {
      responseId: `resp_${responseCounter}`,
      itemPrefix: String(responseCounter),
    });
    openResponses.add(res);
    res.on("close", () => openResponses.delete(res));
    res.writeHead(200, {
      ...scripted.headers,
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    res.flushHeaders();
    const all = terminal ? [...events, terminal] : events;
    for (const event of all) {
      if (scripted.delayMs) await sleep(scripted.delayMs);
      if (closed || res.destroyed || res.writableEnded) return;
      res.write(sseFrame(event));
    }
    if (scripted.hang) return; // stays open until the client goes away or close()
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log.debug({ port }, "fake model listening");

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    enqueue(...responses: ScriptedResponse[]) {
      queue.push(...parseFakeModelScript(responses).responses);
    },
    pending: () => queue.length,
    discardQueued: () => queue.splice(0).length,
    refuseKey: (apiKey) => {
      refusedKeys.add(apiKey);
      return () => void refusedKeys.delete(apiKey);
    },
    setAccountUsage(body: unknown) {
      accountUsage = body;
    },
    waitForRequests(n: number, timeoutMs = 30_000): Promise<RecordedRequest[]> {
      if (requests.length >= n) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const waiter = {
          n,
          resolve: (r: RecordedRequest[]) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`fake model: waited ${timeoutMs} ms for ${n} requests, got ${requests.length}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const res of openResponses) res.destroy();
      openResponses.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
