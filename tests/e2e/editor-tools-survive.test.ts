// Issue 48, item 2: the embedded file tools survive every session event. After a load or a resume
// of a session still open (Zed reopens one from its history panel), a fork, a close and reopen,
// a mode switch and a codex restart, the model's next write_text_file still reaches the editor
// (v1: fs/write_text_file; v2 has no fs/*, so the disk) and the model reads a result, not
// "handshaking with MCP server failed ... Not found". Real codex, fake model, real ACP clients.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse, toolCallResponse, type FakeModel } from "../../tools/fake-model/index.js";
import { killCodex, startAdapter, type Adapter } from "../support/adapter.js";
import { startV2Adapter, type V2Adapter } from "../support/adapter-v2.js";
import { waitFor } from "../support/wait-for.js";

const NS = "mcp__acp_fs";
const EVENTS = ["load", "resume", "fork", "close and load", "mode switch", "codex restart"] as const;
type SessionEvent = (typeof EVENTS)[number];

/** One protocol's way to drive the adapter through the events, and to see what a write reached. */
type Driver = {
  fake: FakeModel;
  workspace: string;
  newSession(): Promise<string>;
  /** Runs one prompt to its end. */
  turn(sessionId: string, text: string): Promise<void>;
  /** Applies the event; resolves with the session to go on in (a fork's is new). */
  apply(event: SessionEvent, sessionId: string): Promise<string>;
  /** The content the write to `file` left where the tools write (the editor in v1, the disk in v2). */
  written(file: string): Promise<string | undefined>;
  close(): Promise<void>;
};

let driver: Driver | undefined;
afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

async function v1Driver(): Promise<Driver> {
  const writes: acp.WriteTextFileRequest[] = [];
  const a: Adapter = await startAdapter({
    setupClient: (app) => {
      app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        throw acp.RequestError.resourceNotFound(params.path);
      });
      app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        writes.push(params);
        return {};
      });
    },
  });
  await a.initialize({ fs: { readTextFile: true, writeTextFile: true } });
  const reopen = (method: string, sessionId: string) =>
    a.agent.request(method, { sessionId, cwd: a.workspace, mcpServers: [] });
  return {
    fake: a.fake,
    workspace: a.workspace,
    newSession: async () => (await a.newSession()).sessionId,
    turn: async (sessionId, text) => {
      expect((await a.prompt(sessionId, text)).stopReason).toBe("end_turn");
    },
    apply: async (event, sessionId) => {
      switch (event) {
        case "load":
          await reopen(acp.methods.agent.session.load, sessionId);
          return sessionId;
        case "resume":
          await reopen("session/resume", sessionId);
          return sessionId;
        case "fork":
          return ((await reopen("session/fork", sessionId)) as acp.NewSessionResponse).sessionId;
        case "close and load":
          await a.agent.request(acp.methods.agent.session.close, { sessionId });
          await reopen(acp.methods.agent.session.load, sessionId);
          return sessionId;
        case "mode switch":
          await a.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "full-access" });
          return sessionId;
        case "codex restart":
          await killCodex(a);
          return sessionId;
      }
    },
    written: (file) => Promise.resolve(writes.findLast((w) => w.path === file)?.content),
    close: () => a.close(),
  };
}

async function v2Driver(): Promise<Driver> {
  const a: V2Adapter = await startV2Adapter();
  expect((await a.initialize()).protocolVersion).toBe(2);
  const resume = async (sessionId: string, replay: boolean): Promise<void> => {
    const mark = a.updatesOf(sessionId).length;
    await a.agent.request("session/resume", {
      sessionId,
      cwd: a.workspace,
      ...(replay ? { replayFrom: { type: "start" as const } } : {}),
    });
    // The resumed session's state comes before the answer; the client may read it just after:
    // seen here, so the next turn's wait for idle is not ended by it.
    await waitFor(
      () =>
        a
          .updatesOf(sessionId)
          .slice(mark)
          .some((u) => u.sessionUpdate === "state_update"),
      "the resumed session's state",
    );
  };
  return {
    fake: a.fake,
    workspace: a.workspace,
    newSession: async () => (await a.newSession()).sessionId,
    turn: async (sessionId, text) => {
      const { idle } = await a.turn(sessionId, text);
      expect(idle).toMatchObject({ state: "idle" });
    },
    apply: async (event, sessionId) => {
      switch (event) {
        case "load":
          await resume(sessionId, true);
          return sessionId;
        case "resume":
          await resume(sessionId, false);
          return sessionId;
        case "fork":
          return (await a.agent.request("session/fork", { sessionId, cwd: a.workspace })).sessionId;
        case "close and load":
          await a.agent.request("session/close", { sessionId });
          await resume(sessionId, true);
          return sessionId;
        case "mode switch":
          await a.agent.request("session/set_config_option", {
            sessionId,
            configId: "mode",
            type: "id",
            value: "full-access",
          });
          return sessionId;
        case "codex restart":
          await killCodex(a);
          return sessionId;
      }
    },
    written: (file) => readFile(file, "utf8").catch(() => undefined),
    close: () => a.close(),
  };
}

/** What the model was shown as the output of `callId`. */
function outputFor(fake: FakeModel, callId: string): string {
  for (const r of fake.requests) {
    for (const item of (r.body?.input ?? []) as Array<{ type: string; call_id?: string; output?: unknown }>) {
      if (item.type === "function_call_output" && item.call_id === callId)
        return typeof item.output === "string" ? item.output : JSON.stringify(item.output);
    }
  }
  throw new Error(`no output for ${callId}`);
}

/** A turn whose model writes `content` to `file` with the embedded tool, then ends; checks it landed. */
async function writeThroughTheEditor(
  d: Driver,
  sessionId: string,
  file: string,
  content: string,
  callId: string,
): Promise<void> {
  d.fake.enqueue(
    toolCallResponse("write_text_file", { path: file, content }, { namespace: NS, callId }),
    textResponse("written"),
  );
  await d.turn(sessionId, `write ${callId}`);
  const output = outputFor(d.fake, callId);
  expect(output, `the model's result of ${callId}`).toContain('"success":true');
  expect(output).not.toMatch(/handshak|Not found|failed/i);
  expect(await d.written(file)).toBe(content);
}

describe.each([
  ["v1", v1Driver],
  ["v2", v2Driver],
] as const)("ACP %s: a write through the editor's tools succeeds after", (_version, start) => {
  it.each(EVENTS)("%s", async (event) => {
    driver = await start();
    const d = driver;
    const file = path.join(d.workspace, "notes.txt");
    const sessionId = await d.newSession();
    // A first write: the thread has a turn (a load needs one) and codex has talked to the endpoint.
    await writeThroughTheEditor(d, sessionId, file, "before\n", "call_before");
    const goOnIn = await d.apply(event, sessionId);
    await writeThroughTheEditor(d, goOnIn, file, `after the ${event}\n`, "call_after");
    // And once more: nothing left of the event breaks the tools a turn later either.
    await writeThroughTheEditor(d, goOnIn, file, `later, after the ${event}\n`, "call_later");
  });
});
