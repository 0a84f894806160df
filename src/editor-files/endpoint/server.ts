// One embedded MCP server for the whole adapter: a node:http server on 127.0.0.1 (random port)
// with one endpoint per ACP session (a session reopened while open keeps its predecessor's), each
// at its own random URL path and with its own random bearer token. Requests are refused before
// any MCP handling when the Host header is not loopback:port (403, DNS-rebinding protection), the
// path is unknown (404), or the token is not this path's own (401); then the MCP messages go to
// the endpoint's protocol (endpoint-protocol.ts).
import { randomBytes, timingSafeEqual } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../../log/index.js";
import { writeHttpError } from "./http-error.js";
import { createEndpointProtocol, type EndpointProtocol, type ToolCaller } from "./endpoint-protocol.js";
import { errorToolResult, toolDefinitions, type ToolDefinition, type ToolResult } from "./tools.js";
import { PATCH_TOOL, READ_TOOL, WRITE_TOOL, type FileToolName } from "../contract/index.js";
import { JsonRpcCode } from "../../json-rpc/index.js";

/**
 * Largest request body accepted, checked before anything is buffered (Content-Length first, then
 * while reading). A write carries a whole file; 16 MiB is far above what a model writes in one call.
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Slow clients: the headers must arrive within this, the whole request within REQUEST_TIMEOUT_MS. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;
/** A hook's input is a command line and a tool's output (PostToolUse): bounded well below a write's body. */
const HOOK_BODY_BYTES = 4 * 1024 * 1024;
/** Open connections at most (codex keeps a few; anything past this is refused). */
const MAX_CONNECTIONS = 128;
/** What the Streamable HTTP transport uses: POST (calls), GET (server events), DELETE (end of session). */
const ALLOWED_METHODS: ReadonlySet<string> = new Set(["POST", "GET", "DELETE"]);
/** How long a tool call waits for its session to be attached (thread/start racing the first call). */
const BIND_TIMEOUT_MS = 30_000;
/** An endpoint never bound (its session failed to open) is removed after this long. */
const UNBOUND_TTL_MS = 10 * 60_000;

export type EndpointInfo = {
  url: string;
  /** The session's hook address (its path is a secret of its own: command-changes/hooks.ts). */
  hook: { port: number; path: string };
  /** The bearer token (never log it). */
  token: string;
  /** Headers codex must send: `Authorization: Bearer <token>`. */
  headers: Record<string, string>;
};

/** Answers one of Codex's hook calls (its JSON input) with what the hook prints. */
export type HookHandler = (input: unknown) => Promise<string>;

/** One key's hold on an endpoint: the code that runs its tools, once bound. */
type Binding = {
  /** The caller once bound; undefined when the key is let go unbound (a caller waiting on it looks again). */
  caller: Promise<ToolCaller | undefined>;
  bind(caller: ToolCaller): void;
  release(): void;
  /** What answers the session's hooks (command-changes/hooks.ts), once bound. */
  hooks?: HookHandler;
};

type Endpoint = {
  path: string;
  hookPath: string;
  token: Buffer;
  /**
   * The keys (session openings) using this endpoint, oldest first; calls go to the newest. A
   * reopened thread's new session shares its predecessor's endpoint: Codex keeps the MCP servers
   * a thread it has loaded was started with, whatever a new thread/resume says.
   */
  keys: Map<string, Binding>;
  /** The tools this endpoint lists (a session without the editor's write capability has no apply_patch). */
  tools: readonly ToolDefinition[];
  protocol?: EndpointProtocol;
  closed: boolean;
};

const ALL_TOOLS: readonly FileToolName[] = [READ_TOOL, WRITE_TOOL, PATCH_TOOL];

export type FileToolsServerOptions = {
  log: Logger;
  name?: string;
  version?: string;
  /** Limits (tests lower them); defaults above. */
  limits?: {
    maxBodyBytes?: number;
    headersTimeoutMs?: number;
    requestTimeoutMs?: number;
    maxConnections?: number;
    checkIntervalMs?: number;
  };
};

export class FileToolsServer {
  private server: http.Server | undefined;
  private listening: Promise<number> | undefined;
  private readonly byPath = new Map<string, Endpoint>();
  private readonly byKey = new Map<string, Endpoint>();
  private readonly byHookPath = new Map<string, Endpoint>();

  constructor(private readonly opts: FileToolsServerOptions) {}

  /** Starts listening (idempotent). Resolves with the port. */
  start(): Promise<number> {
    if (this.listening) return this.listening;
    this.listening = new Promise<number>((resolve, reject) => {
      // How often Node looks for requests past their timeouts (its default, 30 s, lets a slow client linger).
      const server = http.createServer(
        { connectionsCheckingInterval: this.opts.limits?.checkIntervalMs ?? 1000 },
        (req, res) => {
          this.onRequest(req, res).catch((err: unknown) => {
            this.opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, "mcp request failed");
            if (!res.headersSent) res.writeHead(500).end();
            else res.end();
          });
        },
      );
      const limits = this.opts.limits ?? {};
      server.keepAliveTimeout = 60_000;
      server.headersTimeout = limits.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
      server.requestTimeout = limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
      server.maxConnections = limits.maxConnections ?? MAX_CONNECTIONS;
      // A connection that sends nothing at all is cut as a slow one would be (Node's header
      // timeout starts only with the first byte); an open request awaiting its answer is not. A
      // little before Node's own check: on a loaded machine that check sometimes came first and
      // answered such a connection with a 408 (31 of 200 in one CI run), where it should be cut unanswered.
      const silentFor = Math.floor((limits.headersTimeoutMs ?? HEADERS_TIMEOUT_MS) * 0.8);
      server.on("connection", (socket) => {
        const timer = setTimeout(() => socket.destroy(), silentFor);
        timer.unref();
        socket.once("data", () => clearTimeout(timer));
        socket.once("close", () => clearTimeout(timer));
      });
      server.on("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        // Once listening, an error (EMFILE on accept, say) concerns one connection: logged, and the
        // server goes on (with no listener it would be thrown and end the process).
        server.on("error", (err: NodeJS.ErrnoException) =>
          this.opts.log.warn({ code: err.code ?? err.message }, "mcp server error"),
        );
        server.unref();
        this.server = server;
        resolve((server.address() as AddressInfo).port);
      });
    });
    return this.listening;
  }

  get port(): number | undefined {
    const addr = this.server?.address();
    return addr && typeof addr === "object" ? addr.port : undefined;
  }

  /**
   * Creates the endpoint of one session (named by `key`), listing `tools`. Tool calls wait until
   * `bind`. With `sameAs`, the key of an endpoint still registered, `key` names that endpoint too
   * (same URL, token and MCP sessions; its tools stay): calls go to `key` once it is bound, and
   * the endpoint lives until both keys are unregistered.
   */
  async register(key: string, opts: { tools?: readonly FileToolName[]; sameAs?: string } = {}): Promise<EndpointInfo> {
    const port = await this.start();
    this.unregister(key);
    const shared = opts.sameAs === undefined ? undefined : this.byKey.get(opts.sameAs);
    const endpoint: Endpoint = shared ?? {
      path: `/mcp/${randomBytes(16).toString("hex")}`,
      hookPath: `/hook/${randomBytes(24).toString("hex")}`,
      token: Buffer.from(randomBytes(32).toString("base64url")),
      keys: new Map(),
      tools: toolDefinitions(opts.tools ?? ALL_TOOLS),
      closed: false,
    };
    let resolveCaller!: (caller: ToolCaller | undefined) => void;
    const caller = new Promise<ToolCaller | undefined>((resolve) => (resolveCaller = resolve));
    const expiry = setTimeout(() => {
      if (endpoint.keys.get(key) === binding) this.unregister(key);
    }, UNBOUND_TTL_MS);
    expiry.unref();
    const binding: Binding = {
      caller,
      bind: (c) => {
        clearTimeout(expiry);
        resolveCaller(c);
      },
      release: () => {
        clearTimeout(expiry);
        resolveCaller(undefined);
      },
    };
    endpoint.keys.set(key, binding);
    this.byPath.set(endpoint.path, endpoint);
    this.byKey.set(key, endpoint);
    this.byHookPath.set(endpoint.hookPath, endpoint);
    const token = endpoint.token.toString();
    return {
      url: `http://127.0.0.1:${port}${endpoint.path}`,
      hook: { port, path: endpoint.hookPath },
      token,
      headers: { Authorization: `Bearer ${token}` },
    };
  }

  /** Connects an endpoint to the code that runs its tools (and answers its hooks). */
  bind(key: string, caller: ToolCaller, hooks?: HookHandler): void {
    const binding = this.byKey.get(key)?.keys.get(key);
    if (!binding) throw new Error(`no MCP endpoint for session key ${key}`);
    if (hooks) binding.hooks = hooks;
    binding.bind(caller);
  }

  /** Lets `key` go; once no key names its endpoint, the endpoint's URL and token stop working at once. */
  unregister(key: string): void {
    const endpoint = this.byKey.get(key);
    if (!endpoint) return;
    this.byKey.delete(key);
    endpoint.keys.get(key)?.release();
    endpoint.keys.delete(key);
    if (endpoint.keys.size > 0) return;
    endpoint.closed = true;
    this.byPath.delete(endpoint.path);
    this.byHookPath.delete(endpoint.hookPath);
    endpoint.protocol?.close();
  }

  get endpointCount(): number {
    return this.byPath.size;
  }

  async close(): Promise<void> {
    for (const key of [...this.byKey.keys()]) this.unregister(key);
    const server = this.server;
    this.server = undefined;
    this.listening = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const port = this.port;
    const host = req.headers.host ?? "";
    if (port === undefined || (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)) {
      return writeHttpError(res, 403, "Forbidden: the Host header must be 127.0.0.1 or localhost");
    }
    // Codex never sends an Origin; a browser always does (a page trying to reach a local port).
    if (req.headers.origin !== undefined)
      return writeHttpError(res, 403, "Forbidden: browser requests are not accepted");
    if (!ALLOWED_METHODS.has(req.method ?? "")) {
      res.setHeader("Allow", [...ALLOWED_METHODS].join(", "));
      return writeHttpError(res, 405, "Method not allowed");
    }
    const pathname = (req.url ?? "/").split("?")[0] ?? "/";
    const hooked = this.byHookPath.get(pathname);
    if (hooked) return this.onHook(hooked, req, res);
    const endpoint = this.byPath.get(pathname);
    if (!endpoint || endpoint.closed) return writeHttpError(res, 404, "Not found");
    if (!tokenMatches(req.headers.authorization, endpoint.token)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="codex-cli-acp"');
      return writeHttpError(res, 401, "Unauthorized");
    }
    let body: unknown;
    if (req.method === "POST") {
      const raw = await readBody(req, this.opts.limits?.maxBodyBytes ?? MAX_BODY_BYTES);
      if (raw === undefined) {
        // Stop reading: answer, then drop the connection rather than swallow the rest.
        res.setHeader("Connection", "close");
        res.on("finish", () => req.socket.destroy());
        return writeHttpError(
          res,
          413,
          `Request body too large (limit ${this.opts.limits?.maxBodyBytes ?? MAX_BODY_BYTES} bytes)`,
        );
      }
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return writeHttpError(res, 400, "Parse error", JsonRpcCode.ParseError);
      }
    }
    endpoint.protocol ??= createEndpointProtocol({
      name: this.opts.name ?? "codex-cli-acp",
      version: this.opts.version ?? "0",
      tools: endpoint.tools,
      log: this.opts.log,
      call: (name, args, signal) => callBound(endpoint, name, args, signal),
    });
    await endpoint.protocol.handle(req, res, body);
  }

  /** A hook's call: its JSON input in, what the hook prints out (200, text), never an MCP message. */
  private async onHook(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The newest key's hooks answer, as its tools do: a reopened session's, not its predecessor's.
    const hooks = [...endpoint.keys.values()].reverse().find((b) => b.hooks)?.hooks;
    if (req.method !== "POST" || endpoint.closed || !hooks) return writeHttpError(res, 404, "Not found");
    const raw = await readBody(req, HOOK_BODY_BYTES);
    let input: unknown;
    try {
      input = raw === undefined ? undefined : JSON.parse(raw.toString("utf8"));
    } catch {
      input = undefined;
    }
    if (input === undefined) return writeHttpError(res, 400, "A hook's input is one JSON object");
    const out = await hooks(input).catch((err: unknown) => {
      this.opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, "a hook call failed");
      return "";
    });
    const body = Buffer.from(out, "utf8");
    res
      .writeHead(200, {
        "Content-Type": "text/plain; charset=utf-8",
        "Content-Length": body.length,
        Connection: "close",
      })
      .end(body);
  }
}

/** Runs a call on the newest key's caller, waiting (up to BIND_TIMEOUT_MS) for it to be bound. */
async function callBound(endpoint: Endpoint, name: string, args: unknown, signal: AbortSignal): Promise<ToolResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), BIND_TIMEOUT_MS);
  });
  let caller: ToolCaller | "timeout" | undefined;
  // A key let go before it was bound (a refused reopening) hands the call to the key before it.
  while (caller === undefined && !endpoint.closed) {
    const newest = [...endpoint.keys.values()].at(-1);
    if (!newest) break;
    caller = await Promise.race([newest.caller, timeout]);
  }
  clearTimeout(timer);
  if (caller === undefined || caller === "timeout" || endpoint.closed)
    return errorToolResult(JsonRpcCode.InternalError, "The editor session of this tool is not available");
  if (!endpoint.tools.some((t) => t.name === name))
    return errorToolResult(JsonRpcCode.MethodNotFound, `Unknown tool: ${name}`);
  return caller(name, args, signal);
}

function tokenMatches(header: string | undefined, token: Buffer): boolean {
  if (!header) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  return given.length === token.length && timingSafeEqual(given, token);
}

/** The body, or undefined as soon as it is known to exceed `max` bytes (nothing past it is kept). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= max) {
        chunks.push(chunk);
        return;
      }
      req.off("data", onData);
      req.pause();
      chunks.length = 0;
      resolve(undefined);
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
