// The embedded file tools as a session feature: each ACP session gets its own MCP endpoint
// (URL path + bearer token) on the adapter's one MCP server, registered in the thread's
// `config.mcp_servers` (a load or resume of a session still open shares the open one's
// endpoint), and its tool calls are served by src/editor-files/access (the editor when the client
// has the fs capability, whose answer is final; else node:fs) under the session's write policy.
// With the editor's write capability the model gets our editor-backed apply_patch, and Codex's
// native one (which writes the disk behind the editor's back) is removed from the thread through
// a per-thread model catalog (src/codex/catalog.ts). Writes outside the workspace ask the user
// once per call (write-prompt.ts); Codex is told to auto-approve our tools, so one call never
// shows two prompts. Each call's deadline and cancel: call-lifetime.ts; the model's text: instructions.ts.
// ACP tool-call updates come from the app-server items (src/bridge/file-tools.ts), not from here.
import { DEFAULT_FILE_TOOL_TIMEOUT_SEC, VERSION } from "../config/index.js";
import { createFileAccess, describeDrift, type FileAccess } from "./access/index.js";
import { FileToolsServer, callFileTool, type ToolCaller } from "./endpoint/index.js";
import { FILE_TOOLS_SERVER, PATCH_TOOL, READ_TOOL, WRITE_TOOL, type FileToolName } from "./contract/index.js";
import { FileToolCalls } from "./tool-calls.js";
import { userTurnsHooksOff, type CodexNotification } from "../codex/index.js";
import type { AgentServices, SessionFeature, SessionOpening } from "../core/index.js";
import { route } from "../core/index.js";
import { withShellPatchGuard } from "./shell-patch-guard.js";
import type { AcpSession } from "../core/index.js";
import { withMcpServers } from "../core/index.js";
import { writeRuleOf } from "../core/index.js";
import { commandCards } from "./command-cards.js";
import { fileToolsInstructions } from "./instructions.js";
import { editorFiles } from "./editor-fs.js";
import { askWrite } from "./write-prompt.js";
import { giveUp, runCall } from "./call-lifetime.js";

export { FILE_TOOLS_SERVER, fileToolsInstructions };

type FileToolsSession = {
  session: AcpSession;
  access: FileAccess;
  /** "Always allow writes outside the workspace" was chosen in this session. */
  alwaysAllow: boolean;
  calls: FileToolCalls;
  /** Calls running now, each with what gives it up (the turn's cancel, the session's close). */
  running: Set<AbortController>;
  unlisten(): void;
  /** Stops tracking the session's commands (command-cards.ts). */
  stopCommands(): void;
};

export type FileToolsFeatureOptions = {
  /** The MCP server (tests pass their own); default: one created on first use. */
  server?: FileToolsServer;
  /** Codex's deadline for one call (`tool_timeout_sec` of our server), in seconds. */
  toolTimeoutSec?: number;
};

/** True when the client lets the editor write files: then our apply_patch replaces Codex's. */
function editorWrites(services: AgentServices): boolean {
  return services.clientCapabilities().fs?.writeTextFile === true;
}

export function fileToolsFeature(opts: FileToolsFeatureOptions = {}): SessionFeature {
  let server = opts.server;
  const toolTimeoutSec = opts.toolTimeoutSec ?? DEFAULT_FILE_TOOL_TIMEOUT_SEC;
  /** Session key (opening.key) per session, and the session state per key. */
  const keyOf = new Map<AcpSession, string>();
  const states = new Map<string, FileToolsSession>();

  const getServer = (services: AgentServices): FileToolsServer => {
    server ??= new FileToolsServer({ log: services.log, name: "codex-cli-acp", version: VERSION });
    return server;
  };

  /** The catalog path for threads without the native apply_patch; undefined (logged) if it cannot be made. */
  const catalogPath = (services: AgentServices): Promise<string | undefined> =>
    services.host.catalogWithoutNativePatch().then(
      (c) => c.path,
      (err: unknown) => {
        services.log.warn(
          { reason: err instanceof Error ? err.message : String(err) },
          "cannot remove Codex's native apply_patch from this thread",
        );
        return undefined;
      },
    );

  return {
    name: "file-tools",

    initialized(services: AgentServices): void {
      // Off the critical path: the first session/new then finds the endpoint listening and the
      // catalog derived.
      void getServer(services)
        .start()
        .catch(() => undefined);
      if (editorWrites(services)) void catalogPath(services);
    },

    async prepare(opening: SessionOpening, services: AgentServices): Promise<void> {
      const withPatch = editorWrites(services);
      const tools: FileToolName[] = withPatch ? [READ_TOOL, WRITE_TOOL, PATCH_TOOL] : [READ_TOOL, WRITE_TOOL];
      // A load or resume of a session still open keeps its endpoint: Codex, which has the thread
      // loaded, goes on calling the MCP server the thread was started with, and answers
      // "Not found" to every file tool call once that endpoint is gone.
      const sameAs =
        opening.kind !== "new" && "sessionId" in opening.request ? openKeyOf(opening.request.sessionId) : undefined;
      const [endpoint, catalog, userConfig] = await Promise.all([
        getServer(services).register(opening.key, { tools, ...(sameAs === undefined ? {} : { sameAs }) }),
        withPatch ? catalogPath(services) : undefined,
        services.host.userConfig.read(opening.settings.cwd),
      ]);
      const s = opening.settings;
      s.config = withMcpServers(catalog ? { ...s.config, model_catalog_json: catalog } : s.config, {
        [FILE_TOOLS_SERVER]: {
          url: endpoint.url,
          http_headers: endpoint.headers,
          // Our own write policy decides (and asks the user when needed): codex must not ask too.
          default_tools_approval_mode: "approve",
          // A call may wait on the user (a write outside the workspace asks): Codex's default 60 s
          // would give it up while the prompt is still open. Our own deadline comes a little sooner.
          tool_timeout_sec: toolTimeoutSec,
          // Listed to the model directly: for models with tool search, Codex otherwise hides every
          // MCP tool behind tool_search, and a model would not find the apply_patch it expects.
          omit_tools_from: ["deferred"],
          tools: Object.fromEntries(tools.map((t) => [t, { approval_mode: "approve" }])),
        },
      });
      // apply_patch run as a shell command would be applied by Codex on disk: refused, with a
      // pointer to ours (src/editor-files/shell-patch-guard.ts); and every command reports to the
      // session's hook address, so its card shows what it changed (command-cards.ts).
      s.config = withShellPatchGuard(s.config, process.platform, {
        userTurnsHooksOff: userTurnsHooksOff(userConfig),
        report: endpoint.hook,
        guard: withPatch,
        reportAfter: services.clientCapabilities().fs?.readTextFile === true,
      });
      // Codex's own apply_patch stays on offer: watch for the ones it rejects (they have no item).
      if (!catalog) s.rawEvents = true;
      const instructions = fileToolsInstructions(withPatch);
      s.developerInstructions = s.developerInstructions
        ? `${s.developerInstructions}\n\n${instructions}`
        : instructions;
      services.log.debug({ key: opening.key, kind: opening.kind, tools }, "file tools endpoint registered");
    },

    attach(session: AcpSession, opening: SessionOpening, services: AgentServices): void {
      const srv = getServer(services);
      const calls = new FileToolCalls(session.items);
      // The policy asks through the session's state (its "always allow"), made just below: asked only once a call runs.
      const access = createFileAccess({
        editor: editorFiles(session, services),
        logger: services.log,
        policy: {
          mode: () => writeRuleOf(session),
          roots: () => session.roots,
          ask: ({ changes, call, signal }) => askWrite(state, services, changes, call, signal),
        },
      });
      const state: FileToolsSession = {
        session,
        access,
        alwaysAllow: false,
        calls,
        running: new Set(),
        unlisten: () => undefined,
        stopCommands: () => undefined,
      };
      const listener = (n: CodexNotification): void => calls.observe(n);
      // A cancelled turn gives up its file-tool calls too: a prompt they wait on is withdrawn and
      // nothing is written after the cancel.
      const cancel = (): void => {
        calls.cancelWaits();
        giveUp(state.running, "the turn was cancelled");
      };
      // Edits of the last turn that the user undid in the editor since are told to the next turn.
      const beforeTurn = (): Promise<void> => tellDrift(state, services);
      const unsubscribe = [
        session.on("notification", listener),
        session.on("cancel", cancel),
        session.on("beforeTurn", beforeTurn),
        session.on("sizes", () => ({
          claimedFileToolCalls: calls.claimedCount,
          runningFileToolCalls: state.running.size,
        })),
      ];
      state.unlisten = () => unsubscribe.forEach((off) => off());
      const old = keyOf.get(session);
      if (old !== undefined && old !== opening.key) release(srv, old);
      keyOf.set(session, opening.key);
      states.set(opening.key, state);
      const caller: ToolCaller = (name, args, signal) => {
        const call = { tool: name, args };
        // A rollback after a cancel or a close is not announced: the prompt has been answered.
        const onRollback = (callSignal: AbortSignal) => (r: { files: string[]; reason: string }) =>
          callSignal.aborted ? Promise.resolve() : announceRollback(state, call, r);
        return runCall(state.running, toolTimeoutSec, signal, (callSignal) =>
          callFileTool(state.access, name, args, {
            cwd: session.cwd,
            call,
            signal: callSignal,
            onRollback: onRollback(callSignal),
          }),
        );
      };
      const editor = editorFiles(session, services);
      const read = editor.readTextFile?.bind(editor);
      const cards = commandCards(session, services.log, read && ((path) => read({ path }).then((r) => r.content)));
      state.stopCommands = cards.stop;
      srv.bind(opening.key, caller, cards.hooks);
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

    requestRoutes: [fileToolsElicitationRoute],
  };

  /** The endpoint key of the open session of this id, if one is open here. */
  function openKeyOf(sessionId: string): string | undefined {
    for (const [session, key] of keyOf) if (session.id === sessionId) return key;
    return undefined;
  }

  function release(srv: FileToolsServer, key: string): void {
    const state = states.get(key);
    if (state) {
      state.unlisten();
      state.stopCommands();
      state.calls.cancelWaits();
      giveUp(state.running, "the session closed");
      states.delete(key);
    }
    srv.unregister(key);
  }
}

/** How long a prompt waits for the editor's texts of the last turn's edits before it goes without them. */
const DRIFT_CHECK_MS = 2000;

/** Tells the next turn which edits the user undid (or which landed after all), once. */
async function tellDrift(state: FileToolsSession, services: AgentServices): Promise<void> {
  if (state.session.cancelling) return;
  let timer: NodeJS.Timeout | undefined;
  // An editor that does not answer a read must not hold the prompt (nor its cancel) back.
  const late = new Promise<[]>((resolve) => {
    timer = setTimeout(() => {
      services.log.info(
        { sessionId: state.session.id },
        "the editor did not return the last turn's files in time; edits not checked",
      );
      resolve([]);
    }, DRIFT_CHECK_MS);
  });
  const drift = await Promise.race([state.access.takeDrift().catch(() => []), late]);
  clearTimeout(timer);
  if (drift.length === 0) return;
  services.log.info(
    { sessionId: state.session.id, files: drift.length },
    "edits changed in the editor since the last turn; the model is told",
  );
  state.session.addTurnContext("codex-cli-acp/edits", describeDrift(drift));
}

/**
 * Before a patch that failed half way puts back what it wrote: the user hears why on the patch's
 * card, so the editor's prompts for those writes (acpx asks about each) are not a mystery.
 */
async function announceRollback(
  state: FileToolsSession,
  call: object,
  r: { files: string[]; reason: string },
): Promise<void> {
  const toolCallId = await state.calls.itemIdOf(call);
  if (!toolCallId) return;
  const text = `${r.reason}\nNo file is left half patched: putting back ${r.files.join(", ")} as ${r.files.length === 1 ? "it was" : "they were"}.`;
  await state.session.send({
    sessionUpdate: "tool_call_update",
    toolCallId,
    content: [{ type: "content", content: { type: "text", text } }],
  });
}

/** Auto-accepts codex's approval elicitations for our own server: our write policy has decided already. */
const fileToolsElicitationRoute = route(
  "mcpServer/elicitation/request",
  (session, _request, services) => {
    services.log.debug(
      { sessionId: session.id },
      "codex asked to approve a file tool call; auto-accepted (our write policy decides)",
    );
    return Promise.resolve({ action: "accept", content: {}, _meta: null });
  },
  { server: FILE_TOOLS_SERVER },
);
