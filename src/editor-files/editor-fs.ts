// The editor's fs/* methods as the EditorFiles that src/editor-files/access serves calls through,
// on their own: this is the ACP client side (which requests, how a given-up call withdraws them),
// apart from the session wiring in feature.ts that hands them to createFileAccess.
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { EditorFiles } from "./access/index.js";
import type { AcpSession, AgentServices } from "../core/index.js";

/** The editor's fs/* methods, only those the client advertised. */
export function editorFiles(session: AcpSession, services: AgentServices): EditorFiles {
  const fs = services.clientCapabilities().fs;
  const editor: EditorFiles = {};
  if (fs?.readTextFile) {
    // A read given up on is withdrawn ($/cancel_request) and not waited for: nothing depends on its answer.
    editor.readTextFile = async ({ path, line, limit }, signal) => {
      const r = await services.client().request(
        acp.methods.client.fs.readTextFile,
        {
          sessionId: session.id,
          path,
          ...(line !== undefined ? { line } : {}),
          ...(limit !== undefined ? { limit } : {}),
        },
        signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
      );
      return { content: r.content };
    };
  }
  if (fs?.writeTextFile) {
    // A call given up on withdraws its write ($/cancel_request), but waits for the editor's answer:
    // an editor that applied it anyway says so, and the next turn is told (src/editor-files/access/ledger.ts).
    editor.writeTextFile = async ({ path, content }, signal) => {
      await services
        .client()
        .request(
          acp.methods.client.fs.writeTextFile,
          { sessionId: session.id, path, content },
          signal ? { cancellationSignal: signal } : {},
        );
    };
  }
  return editor;
}
