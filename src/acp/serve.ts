// Serves ACP on this process's stdio until the editor closes stdin.
import { Readable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { CodexHost } from "../codex/index.js";
import { routeConsoleToLogger, type Logger } from "../log/index.js";
import { limitLineLength, readPipeLines } from "../streams/index.js";

/** The largest message accepted from the client (under the ACP SDK's own 32 MiB, which ends the connection). */
const MAX_MESSAGE_BYTES = 30 * 1024 * 1024;
import { createAgent } from "./agent.js";
import type { SessionFeature } from "./features.js";
import { fileToolsFeature } from "./file-tools.js";
import { registerLifecycle } from "./lifecycle.js";
import { registerSessionAdmin } from "./session-admin.js";
import { registerAuthRequests } from "./auth-requests.js";
import { titlesFeature } from "./titles.js";
import { approvalsFeature } from "./approvals.js";
import { commandsFeature } from "./commands.js";
import { configOptionsFeature } from "./config-options.js";
import { mcpServersFeature } from "./mcp-servers.js";
import { directoriesFeature } from "./directories.js";
import { modesFeature } from "./modes.js";
import { questionsFeature } from "./questions.js";
import { mcpElicitationsFeature } from "./mcp-elicitations.js";
import { steeringFeature } from "./steering.js";
import { codexWarningsFeature } from "./codex-warnings.js";
import { subagentsFeature } from "./subagents.js";
import { systemPromptFeature } from "./system-prompt.js";

/** The capabilities of a session, in the order they run. */
function sessionFeatures(): SessionFeature[] {
  return [systemPromptFeature, fileToolsFeature(), titlesFeature(), mcpServersFeature(), modesFeature, directoriesFeature(), approvalsFeature(), questionsFeature, mcpElicitationsFeature, configOptionsFeature(), commandsFeature(), steeringFeature, codexWarningsFeature(), subagentsFeature()];
}


export async function serveStdio(host: CodexHost, log: Logger): Promise<void> {
  routeConsoleToLogger(log);
  const agent = createAgent({ host, log, features: sessionFeatures() });
  registerLifecycle(agent);
  registerSessionAdmin(agent);
  registerAuthRequests(agent);
  // The client closing our stdout (it quit mid-stream) is a normal end, like closing stdin.
  let outputClosed!: () => void;
  const outputGone = new Promise<void>((resolve) => (outputClosed = resolve));
  const stdout = batchedStdout((err) => {
    log.info({ code: err.code ?? err.message }, "the client closed its end of stdout; shutting down");
    outputClosed();
  });
  const tooLong = (): void => {
    log.warn({ limit: MAX_MESSAGE_BYTES }, "a message from the client is over the size limit; refused");
    stdout.sendLine(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: a message is over ${MAX_MESSAGE_BYTES} bytes` } }));
  };
  // Editors give us a pipe; a file or a terminal on stdin goes through Node's own stream.
  const input =
    readPipeLines(0, MAX_MESSAGE_BYTES, tooLong) ??
    (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>).pipeThrough(limitLineLength(MAX_MESSAGE_BYTES, tooLong));
  const stream = acp.ndJsonStream(stdout.stream, input);
  const connection = agent.app.connect(stream);
  await Promise.race([connection.closed, outputGone]);
  log.info({ sessions: agent.state.sessions.size }, "client disconnected; shutting down");
  for (const session of agent.state.sessions.values()) session.close();
  await host.close();
  stdout.flush();
}

/**
 * stdout for the SDK's ndjson stream, writing every message queued in one turn of the
 * event loop with a single write. The bytes are exactly the messages, line by line; what
 * changes is one syscall per burst instead of one per message (stdout pipes are
 * synchronous on Linux, and a 5,000-delta stream spent a fifth of its CPU in them).
 */
function batchedStdout(onClosed: (err: NodeJS.ErrnoException) => void): { stream: WritableStream<Uint8Array>; flush(): void; sendLine(line: string): void } {
  let pending: Uint8Array[] = [];
  let scheduled = false;
  let drained: Promise<void> | undefined;
  let closed = false;
  // EPIPE (the reader is gone) arrives as an 'error' event: without a listener it would crash us.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    pending = [];
    onClosed(err);
  });
  const flush = (): void => {
    scheduled = false;
    if (closed) pending = [];
    if (pending.length === 0) return;
    const chunks = pending;
    pending = [];
    const ok = process.stdout.write(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    // An asynchronous pipe (macOS) that is full: hold further writes until it drains.
    if (!ok) drained = new Promise((resolve) => process.stdout.once("drain", () => ((drained = undefined), resolve())));
  };
  const enqueue = (chunk: Uint8Array): void => {
    pending.push(chunk);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      if (drained) await drained;
      enqueue(chunk);
    },
    close: flush,
  });
  /** A message of our own (not through the SDK), in the same batches. */
  const sendLine = (line: string): void => {
    if (!closed) enqueue(Buffer.from(`${line}\n`));
  };
  return { stream, flush, sendLine };
}
