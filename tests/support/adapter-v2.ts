// The adapter driven by an ACP v2 client built on the SDK's v2 client API (the draft shipped in
// @agentclientprotocol/sdk under experimental/v2): the same process an editor starts, the same
// fake model, a client that asks for protocol 2 at initialize.
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { spawnAgent, type AdapterOptions, type AgentProcess } from "./adapter.js";

export type V2Adapter = AgentProcess & {
  agent: v2.ClientContext;
  /** Every session/update received, per session id, in order. */
  updatesOf(sessionId: string): v2.SessionUpdate[];
  /** The permission requests the client was asked, in order. */
  asked: v2.RequestPermissionRequest[];
  initialize(): Promise<v2.InitializeResponse>;
  newSession(extra?: Partial<v2.NewSessionRequest>): Promise<v2.NewSessionResponse>;
  /** Sends a prompt and waits for the idle state_update that ends its turn; returns the prompt's answer and that state. */
  turn(sessionId: string, text: string): Promise<{ answer: v2.PromptResponse; idle: v2.SessionUpdate }>;
  close(): Promise<void>;
};

/** How the client answers a permission request: an option id, or "cancel". */
export type V2Answer = (request: v2.RequestPermissionRequest) => string | "cancel" | Promise<string | "cancel">;

export async function startV2Adapter(opts: AdapterOptions & { answer?: V2Answer } = {}): Promise<V2Adapter> {
  const proc = await spawnAgent(opts);
  const updates = new Map<string, v2.SessionUpdate[]>();
  const idleWaiters = new Map<string, Array<(u: v2.SessionUpdate) => void>>();
  const asked: v2.RequestPermissionRequest[] = [];
  const app = v2
    .client({ name: "test-v2-client" })
    .onNotification(v2.methods.client.session.update, ({ params }) => {
      const list = updates.get(params.sessionId) ?? [];
      list.push(params.update);
      updates.set(params.sessionId, list);
      if (params.update.sessionUpdate === "state_update" && params.update.state === "idle") {
        for (const resolve of idleWaiters.get(params.sessionId)?.splice(0) ?? []) resolve(params.update);
      }
    })
    .onRequest(v2.methods.client.session.requestPermission, async ({ params }) => {
      asked.push(params);
      const choice = opts.answer ? await opts.answer(params) : "cancel";
      return choice === "cancel"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: choice } };
    });
  const connection = app.connect(v2.ndJsonStream(proc.writable, proc.readable));
  const agent = connection.agent;
  const nextIdle = (sessionId: string): Promise<v2.SessionUpdate> =>
    new Promise((resolve) => {
      const list = idleWaiters.get(sessionId) ?? [];
      list.push(resolve);
      idleWaiters.set(sessionId, list);
    });
  return {
    ...proc,
    agent,
    asked,
    updatesOf: (id) => updates.get(id) ?? [],
    initialize: () =>
      agent.request(v2.methods.agent.initialize, {
        protocolVersion: 2,
        info: { name: "test-v2-client", version: "1.0.0" },
        capabilities: {},
      }),
    newSession: (extra) => agent.request(v2.methods.agent.session.new, { cwd: proc.workspace, ...extra }),
    turn: async (sessionId, text) => {
      const idle = nextIdle(sessionId);
      const answer = await agent.request(v2.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      return { answer, idle: await idle };
    },
    close: async () => {
      connection.close();
      await proc.stop();
    },
  };
}
