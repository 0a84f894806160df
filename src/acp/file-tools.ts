// The embedded file tools as a session feature: each ACP session gets its own MCP endpoint
// (URL path + bearer token) on the adapter's one MCP server, registered in the thread's
// `config.mcp_servers`, and its tool calls are served by src/fs (editor first when the client
// has the fs capability, else node:fs) under the session's write policy. Writes outside the
// workspace ask the user once per call (session/request_permission); Codex itself is told to
// auto-approve our tools so the user never sees two prompts for one call.
// ACP tool-call updates come from the app-server items (src/bridge/file-tools.ts), not from here.
import { AsyncLocalStorage } from "node:async_hooks";
import * as acp from "@agentclientprotocol/sdk";
import { FILE_TOOLS_SERVER } from "../bridge/index.js";
import { VERSION } from "../config/index.js";
import { createFileAccess, type EditorFiles, type FileAccess } from "../fs/index.js";
import { FileToolsServer, READ_TOOL, WRITE_TOOL, callFileTool, type ToolCaller } from "../mcp/index.js";
import type { AgentServices, ServerRequestHandler, SessionFeature, SessionOpening } from "./features.js";
import type { AcpSession } from "./session.js";

export { FILE_TOOLS_SERVER };

export const FILE_TOOLS_INSTRUCTIONS = `An editor is attached to this session. For files in the workspace, use the \`${FILE_TOOLS_SERVER}\` MCP tools: \`${READ_TOOL}\` (absolute path; optional 1-based line and limit) instead of shell commands such as cat, sed or head, and \`${WRITE_TOOL}\` (absolute path and the complete new content) to create or replace a file. They read the editor's buffers, including unsaved changes, and the user can review and undo every write in the editor.`;

/** How long a write waits for the app-server item of its call (to name the permission request after it). */
const ITEM_WAIT_MS = 1000;

type WriteCall = { path: string; content: string; toolCallId?: string };

type FileToolsSession = {
  session: AcpSession;
  access: FileAccess;
  /** "Always allow writes outside the workspace" was chosen in this session. */
  alwaysAllow: boolean;
  /** In-progress write_text_file items of our server, from item/started (id -> arguments). */
  writeItems: Map<string, { path?: unknown; content?: unknown; claimed: boolean }>;
  itemWaiters: Set<() => void>;
  pendingPermissions: Set<AbortController>;
  unlisten(): void;
};

export type FileToolsFeatureOptions = {
  /** The MCP server (tests pass their own); default: one created on first use. */
  server?: FileToolsServer;
};

export function fileToolsFeature(opts: FileToolsFeatureOptions = {}): SessionFeature {
  let server = opts.server;
  /** Session key (opening.key) per session id, and the session state per key. */
  const keyOf = new Map<AcpSession, string>();
  const states = new Map<string, FileToolsSession>();
  const currentCall = new AsyncLocalStorage<WriteCall>();

  const getServer = (services: AgentServices): FileToolsServer => {
    server ??= new FileToolsServer({ log: services.log, name: "codex-cli-acp", version: VERSION });
    return server;
  };

  return {
    name: "file-tools",

    async prepare(opening: SessionOpening, services: AgentServices): Promise<void> {
      const endpoint = await getServer(services).register(opening.key);
      const s = opening.settings;
      const existing = (s.config?.mcp_servers as Record<string, unknown> | undefined) ?? {};
      s.config = {
        ...s.config,
        mcp_servers: {
          ...existing,
          [FILE_TOOLS_SERVER]: {
            url: endpoint.url,
            http_headers: endpoint.headers,
            // Our own write policy decides (and asks the user when needed): codex must not ask too.
            default_tools_approval_mode: "approve",
            tools: { [WRITE_TOOL]: { approval_mode: "approve" }, [READ_TOOL]: { approval_mode: "approve" } },
          },
        },
      };
      s.developerInstructions = s.developerInstructions ? `${s.developerInstructions}\n\n${FILE_TOOLS_INSTRUCTIONS}` : FILE_TOOLS_INSTRUCTIONS;
      services.log.debug({ key: opening.key, kind: opening.kind }, "file tools endpoint registered");
    },

    attach(session: AcpSession, opening: SessionOpening, _response: Record<string, unknown>, services: AgentServices): void {
      const srv = getServer(services);
      const state: FileToolsSession = {
        session,
        access: undefined as unknown as FileAccess,
        alwaysAllow: false,
        writeItems: new Map(),
        itemWaiters: new Set(),
        pendingPermissions: new Set(),
        unlisten: () => undefined,
      };
      state.access = createFileAccess({
        editor: editorFiles(session, services),
        logger: services.log,
        policy: {
          mode: () => session.mode,
          roots: () => session.roots,
          ask: ({ path }) => askWrite(state, services, path, currentCall.getStore()),
        },
      });
      const listener = (method: string, params: Record<string, unknown>): void => trackItems(state, method, params);
      const cancel = (): void => {
        for (const c of state.pendingPermissions) c.abort();
      };
      session.threadListeners.add(listener);
      session.cancelHooks.add(cancel);
      state.unlisten = () => {
        session.threadListeners.delete(listener);
        session.cancelHooks.delete(cancel);
      };
      const old = keyOf.get(session);
      if (old !== undefined && old !== opening.key) release(srv, old);
      keyOf.set(session, opening.key);
      states.set(opening.key, state);
      const caller: ToolCaller = (name, args) => {
        if (name !== WRITE_TOOL) return callFileTool(state.access, name, args);
        const a = (args ?? {}) as { path?: unknown; content?: unknown };
        const call: WriteCall = { path: String(a.path), content: typeof a.content === "string" ? a.content : "" };
        return currentCall.run(call, () => callFileTool(state.access, name, args));
      };
      srv.bind(opening.key, caller);
    },

    detach(session: AcpSession): void {
      const key = keyOf.get(session);
      if (key === undefined || !server) return;
      keyOf.delete(session);
      release(server, key);
    },

    abandon(opening: SessionOpening): void {
      // The thread never started: drop its endpoint now rather than after the idle timeout.
      if (server) release(server, opening.key);
    },
  };

  function release(srv: FileToolsServer, key: string): void {
    const state = states.get(key);
    if (state) {
      state.unlisten();
      for (const c of state.pendingPermissions) c.abort();
      states.delete(key);
    }
    srv.unregister(key);
  }
}

/** Auto-accepts codex's approval elicitations for our own server: our write policy has decided already. */
export const fileToolsElicitationHandler: ServerRequestHandler = (session, method, params, services) => {
  if (method !== "mcpServer/elicitation/request" || params.serverName !== FILE_TOOLS_SERVER) return undefined;
  services.log.debug({ sessionId: session.id }, "codex asked to approve a file tool call; auto-accepted (our write policy decides)");
  return Promise.resolve({ action: "accept", content: {}, _meta: null });
};

/** The editor's fs/* methods, only those the client advertised. */
export function editorFiles(session: AcpSession, services: AgentServices): EditorFiles {
  const fs = services.clientCapabilities().fs;
  const editor: EditorFiles = {};
  if (fs?.readTextFile) {
    editor.readTextFile = async ({ path, line, limit }) => {
      const r = await services.client().request(acp.methods.client.fs.readTextFile, {
        sessionId: session.id,
        path,
        ...(line !== undefined ? { line } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      return { content: r.content };
    };
  }
  if (fs?.writeTextFile) {
    editor.writeTextFile = async ({ path, content }) => {
      await services.client().request(acp.methods.client.fs.writeTextFile, { sessionId: session.id, path, content });
    };
  }
  return editor;
}

function trackItems(state: FileToolsSession, method: string, params: Record<string, unknown>): void {
  if (method !== "item/started" && method !== "item/completed") return;
  const item = params.item as { type?: string; id?: string; server?: string; tool?: string; arguments?: unknown } | undefined;
  if (!item?.id || item.type !== "mcpToolCall" || item.server !== FILE_TOOLS_SERVER || item.tool !== WRITE_TOOL) return;
  if (method === "item/completed") {
    state.writeItems.delete(item.id);
    return;
  }
  let a = item.arguments;
  if (typeof a === "string") {
    try {
      a = JSON.parse(a);
    } catch {
      a = {};
    }
  }
  const args = (a && typeof a === "object" ? a : {}) as { path?: unknown; content?: unknown };
  state.writeItems.set(item.id, { path: args.path, content: args.content, claimed: false });
  for (const wake of [...state.itemWaiters]) wake();
}

/** The id of the app-server item of this write call (the tool call the client already shows), if it can be told. */
async function itemIdOf(state: FileToolsSession, call: WriteCall): Promise<string | undefined> {
  const find = (): string | undefined => {
    for (const [id, a] of state.writeItems) {
      if (!a.claimed && a.path === call.path && a.content === call.content) {
        a.claimed = true;
        return id;
      }
    }
    return undefined;
  };
  const found = find();
  if (found) return found;
  return new Promise<string | undefined>((resolve) => {
    const done = (id: string | undefined): void => {
      clearTimeout(timer);
      state.itemWaiters.delete(wake);
      resolve(id);
    };
    const wake = (): void => {
      const id = find();
      if (id) done(id);
    };
    const timer = setTimeout(() => done(undefined), ITEM_WAIT_MS);
    state.itemWaiters.add(wake);
  });
}

/** Asks the user about a write outside the workspace. Resolves true to go ahead. */
async function askWrite(state: FileToolsSession, services: AgentServices, path: string, call: WriteCall | undefined): Promise<boolean> {
  if (state.alwaysAllow) return true;
  const session = state.session;
  // The turn was cancelled (or the session closed): refuse without asking.
  if (session.cancelling) return false;
  const newText = call?.path === path ? call.content : undefined;
  const toolCallId = (call ? await itemIdOf(state, call) : undefined) ?? `${FILE_TOOLS_SERVER}-write-${Date.now().toString(36)}`;
  let oldText: string | null = null;
  if (newText !== undefined) {
    oldText = await state.access
      .read({ path })
      .then((r) => r.content)
      .catch(() => null);
  }
  const controller = new AbortController();
  state.pendingPermissions.add(controller);
  try {
    const response = await services.client().request(
      acp.methods.client.session.requestPermission,
      {
        sessionId: session.id,
        toolCall: {
          toolCallId,
          title: `Write ${path} (outside the workspace)`,
          kind: "edit",
          status: "pending",
          locations: [{ path, line: 1 }],
          ...(newText !== undefined ? { content: [{ type: "diff", path, oldText, newText }] } : {}),
        },
        options: [
          { optionId: "allow_once", name: "Allow", kind: "allow_once" },
          { optionId: "allow_always", name: "Always allow writes outside the workspace for this session", kind: "allow_always" },
          { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        ],
      },
      { cancellationSignal: controller.signal, stopWaitingOnCancel: true },
    );
    const outcome = response.outcome;
    if (outcome.outcome !== "selected") return false;
    if (outcome.optionId === "allow_always") state.alwaysAllow = true;
    return outcome.optionId === "allow_once" || outcome.optionId === "allow_always";
  } catch (err) {
    services.log.info({ sessionId: session.id, reason: err instanceof Error ? err.message : String(err) }, "write permission request failed; not writing");
    return false;
  } finally {
    state.pendingPermissions.delete(controller);
  }
}
