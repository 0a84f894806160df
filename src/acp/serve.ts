// Serves ACP on this process's stdio until the editor closes stdin.
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import type { CodexHost } from "../codex/index.js";
import type { Logger } from "../log/index.js";
import { createAgent } from "./agent.js";
import type { ServerRequestHandler, SessionFeature } from "./features.js";
import { fileToolsElicitationHandler, fileToolsFeature } from "./file-tools.js";
import { registerLifecycle } from "./lifecycle.js";
import { titlesFeature } from "./titles.js";
import { approvalHandler, approvalsFeature } from "./approvals.js";
import { commandsFeature } from "./commands.js";
import { configOptionsFeature } from "./config-options.js";
import { mcpServersFeature } from "./mcp-servers.js";
import { modesFeature } from "./modes.js";

/** The capabilities of a session, in the order they run. */
function sessionFeatures(): SessionFeature[] {
  return [fileToolsFeature(), titlesFeature(), mcpServersFeature, modesFeature, approvalsFeature, configOptionsFeature, commandsFeature];
}

/** Answerers of codex's approval and elicitation requests, tried in order. */
function serverRequestHandlers(): ServerRequestHandler[] {
  return [fileToolsElicitationHandler, approvalHandler];
}

export async function serveStdio(host: CodexHost, log: Logger): Promise<void> {
  const agent = createAgent({ host, log, features: sessionFeatures(), serverRequestHandlers: serverRequestHandlers() });
  registerLifecycle(agent);
  const stream = acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = agent.app.connect(stream);
  await connection.closed;
  log.info({ sessions: agent.state.sessions.size }, "client disconnected; shutting down");
  for (const session of agent.state.sessions.values()) session.close();
  await host.close();
}
