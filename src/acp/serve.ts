// Serves ACP on this process's stdio until the editor closes stdin.
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import type { CodexHost } from "../codex/index.js";
import type { Logger } from "../log/index.js";
import { createAgent } from "./agent.js";

export async function serveStdio(host: CodexHost, log: Logger): Promise<void> {
  const { app, state } = createAgent({ host, log });
  const stream = acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  await connection.closed;
  log.info({ sessions: state.sessions.size }, "client disconnected; shutting down");
  for (const session of state.sessions.values()) session.close();
  await host.close();
}
