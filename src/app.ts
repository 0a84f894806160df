// The composition root: the agent made of the core, its features, stored sessions and sign-in,
// served on this process's stdio until the editor closes stdin (or a stop signal). The only
// module that knows every part; the core knows none of them.
import { Readable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { CodexHost } from "./codex/index.js";
import { routeConsoleToLogger, type Logger } from "./log/index.js";
import { limitLineLength, readPipeLines } from "./streams/index.js";
import { batchedStdout } from "./core/index.js";
import { keepServingOnFault, stopSignal } from "./core/index.js";
import { asksForV2, peekInitialize } from "./core/index.js";
import { holdEndForAnswers } from "./core/index.js";

import { fileToolTimeoutSec } from "./config/index.js";
import { createAgent } from "./core/index.js";
import type { SessionFeature } from "./core/index.js";
import { fileToolsFeature } from "./editor-files/index.js";
import { registerLifecycle } from "./stored-sessions/index.js";
import type { YoungGeneration } from "./startup/index.js";
import { registerSessionAdmin } from "./stored-sessions/index.js";
import { createSignIn } from "./sign-in/index.js";
import { registerSessionArchive } from "./stored-sessions/index.js";
import { titlesFeature } from "./features/index.js";
import { promptSuggestionsFeature } from "./features/index.js";
import { approvalsFeature } from "./features/approvals/index.js";
import { commandsFeature } from "./features/commands/index.js";
import { configOptionsFeature } from "./features/config-options/index.js";
import { mcpServersFeature } from "./features/index.js";
import { directoriesFeature } from "./features/index.js";
import { modesFeature } from "./features/modes/index.js";
import { questionsFeature } from "./features/index.js";
import { mcpElicitationsFeature } from "./features/index.js";
import { steeringFeature } from "./features/index.js";
import { codexWarningsFeature } from "./features/index.js";
import { subagentsFeature } from "./features/index.js";
import { systemPromptFeature } from "./features/index.js";
import { providersFeature } from "./features/index.js";
import { rateLimitsFeature } from "./features/rate-limits/index.js";
import { JsonRpcCode } from "./json-rpc/index.js";

/** A message with a request id that is not a JSON-RPC 2.0 request: it must be answered, with that id. */
const idOfInvalidRequest = z
  .looseObject({
    id: z.union([z.string(), z.number()]),
    method: z.unknown().optional(),
    jsonrpc: z.unknown().optional(),
  })
  .refine((m) => m.method !== undefined && (m.jsonrpc !== "2.0" || typeof m.method !== "string"));

/**
 * Answers -32600 Invalid Request, with the request's id, for a message that carries an id and a
 * method but is not a JSON-RPC 2.0 request (a wrong `jsonrpc`, a method that is not a string); the
 * SDK answers those with `id: null`, and a client waiting on its id would wait forever.
 */
function answeringInvalidRequests(send: (line: string) => void, log: Logger): TransformStream<unknown, acp.AnyMessage> {
  return new TransformStream({
    transform(message, controller) {
      const invalid = Array.isArray(message) ? undefined : idOfInvalidRequest.safeParse(message);
      if (!invalid?.success) {
        controller.enqueue(message as acp.AnyMessage);
        return;
      }
      const why = invalid.data.jsonrpc !== "2.0" ? `"jsonrpc" must be "2.0"` : `"method" must be a string`;
      log.warn({ id: invalid.data.id }, `invalid request from the client: ${why}`);
      send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: invalid.data.id,
          error: { code: JsonRpcCode.InvalidRequest, message: `Invalid Request: ${why}` },
        }),
      );
    },
  });
}

/** The largest message accepted from the client (under the ACP SDK's own 32 MiB, which ends the connection). */
const MAX_MESSAGE_BYTES = 30 * 1024 * 1024;

/** The capabilities of a session, in the order they run. */
function sessionFeatures(): SessionFeature[] {
  return [
    systemPromptFeature,
    fileToolsFeature({ toolTimeoutSec: fileToolTimeoutSec() }),
    titlesFeature(),
    mcpServersFeature(),
    modesFeature(),
    directoriesFeature(),
    approvalsFeature(),
    questionsFeature,
    mcpElicitationsFeature,
    configOptionsFeature(),
    providersFeature(),
    commandsFeature(),
    steeringFeature,
    codexWarningsFeature(),
    rateLimitsFeature(),
    subagentsFeature(),
    promptSuggestionsFeature(),
  ];
}

export async function serveStdio(host: CodexHost, log: Logger, young: YoungGeneration): Promise<void> {
  routeConsoleToLogger(log);
  keepServingOnFault(log);
  const stopped = stopSignal(log);
  const signIn = createSignIn(host, log);
  const agent = createAgent({ host, log, features: sessionFeatures(), signIn: signIn.gate });
  const stored = registerLifecycle(agent, { youngGeneration: young });
  registerSessionAdmin(agent, stored);
  signIn.register(agent);
  registerSessionArchive(agent, stored);
  // The client closing our stdout (it quit mid-stream) is a normal end, like closing stdin.
  let outputClosed!: () => void;
  const outputGone = new Promise<void>((resolve) => (outputClosed = resolve));
  const stdout = batchedStdout(
    (err) => {
      log.info({ code: err.code ?? err.message }, "the client closed its end of stdout; shutting down");
      outputClosed();
    },
    (behind) => {
      log.debug(
        { behind },
        behind
          ? "the client is behind on our output; codex's output held"
          : "the client caught up; codex's output read again",
      );
      host.holdOutput(behind);
    },
  );
  const tooLong = (): void => {
    log.warn({ limit: MAX_MESSAGE_BYTES }, "a message from the client is over the size limit; refused");
    stdout.sendLine(
      JSON.stringify({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: JsonRpcCode.InvalidRequest,
          message: `Invalid Request: a message is over ${MAX_MESSAGE_BYTES} bytes`,
        },
      }),
    );
  };
  // Editors give us a pipe; a file or a terminal on stdin goes through Node's own stream.
  const input =
    readPipeLines(0, MAX_MESSAGE_BYTES, tooLong) ??
    (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>).pipeThrough(
      limitLineLength(MAX_MESSAGE_BYTES, tooLong),
    );
  // The SDK reads and parses the input; what the connection sends is written by `stdout`.
  const { readable } = acp.ndJsonStream(stdout.bytes, input);
  const checked = readable.pipeThrough(answeringInvalidRequests((line) => stdout.sendLine(line), log));
  // A client that closes its input (a script) gets the answers to what it asked first, within a
  // bound; the turns running then are cancelled (their prompts answered at once).
  const lastAnswers = holdEndForAnswers(checked, {
    log,
    onEnd: () => {
      for (const session of agent.state.sessions.values())
        void session
          .cancel()
          .catch((err: unknown) =>
            log.debug({ err: String(err) }, "a turn could not be cancelled at the end of the input"),
          );
    },
  });
  stdout.onAnswer(lastAnswers.answered);
  // A client that asks for ACP v2 is routed by the SDK's router to the v2 front; any other is served v1 directly.
  const served = peekInitialize(lastAnswers.readable).then(async ({ initialize, stream: messages }) => {
    const connection = asksForV2(initialize)
      ? (await import("./protocol-v2/index.js")).connectNegotiated(
          { readable: messages, writable: stdout.messages },
          agent.app,
          log,
        )
      : agent.app.connect({ readable: messages, writable: stdout.messages });
    await connection.closed;
  });
  const signal = await Promise.race([served.then(() => undefined), outputGone, stopped]);
  if (!signal) log.info({ sessions: agent.state.sessions.size }, "client disconnected; shutting down");
  for (const session of agent.state.sessions.values()) session.close();
  await host.close();
  stdout.flush();
}
