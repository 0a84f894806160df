// Issue 25 end to end (real codex, the fake model): an answer that comes too late writes nothing,
// a cancelled turn withdraws the prompt a write waits on and writes nothing, a slow answer within
// the deadline writes once, and an edit the user undid in the editor is told to the next turn.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse, toolCallResponse } from "../../tools/fake-model/index.js";
import { startAdapter, type Adapter, modelOutputFor } from "../support/adapter.js";
import { waitFor } from "../support/wait-for.js";

const NS = "mcp__acp_fs";
const FS_CAPS: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };
let adapter: Adapter | undefined;
const cleanup: string[] = [];

afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  for (const p of cleanup.splice(0)) await rm(p, { recursive: true, force: true });
});

type Editor = {
  buffers: Map<string, string>;
  writes: string[];
  permissions: number;
  answered: number;
  answerAfterMs: number;
  neverAnswer: boolean;
};

/** An editor like Zed (fs/* from its buffers) whose user takes `answerAfterMs` to answer a permission prompt. */
function editor(): { ed: Editor; setupClient: (app: acp.ClientApp) => void } {
  const ed: Editor = {
    buffers: new Map(),
    writes: [],
    permissions: 0,
    answered: 0,
    answerAfterMs: 0,
    neverAnswer: false,
  };
  return {
    ed,
    setupClient: (app) => {
      app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
        const text = ed.buffers.get(params.path) ?? (await readFile(params.path, "utf8").catch(() => undefined));
        if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
        return { content: text };
      });
      app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        ed.writes.push(params.path);
        ed.buffers.set(params.path, params.content);
        return {};
      });
      app.onRequest(acp.methods.client.session.requestPermission, async () => {
        ed.permissions++;
        if (ed.neverAnswer) await new Promise(() => undefined);
        await new Promise((r) => setTimeout(r, ed.answerAfterMs)); // the user taking their time: the scenario
        ed.answered++;
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      });
    },
  };
}

async function outsideDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-outside-")));
  cleanup.push(dir);
  return dir;
}

const writeOutside = (file: string, callId: string) =>
  toolCallResponse("write_text_file", { path: file, content: "from the model\n" }, { namespace: NS, callId });

describe("late answers cannot write", () => {
  it("a yes given after the file tools' deadline writes nothing, the prompt is withdrawn, and the model is told", async () => {
    const { ed, setupClient } = editor();
    ed.answerAfterMs = 6000;
    adapter = await startAdapter({ setupClient, env: { CODEX_ACP_FILE_TOOL_TIMEOUT_SEC: "3" } });
    const target = path.join(await outsideDir(), "late.txt");
    adapter.fake.enqueue(writeOutside(target, "late-1"), textResponse("done"), textResponse("nothing else"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    const withdrawn = adapter.waitForLine((m) => m.method === "$/cancel_request", 20_000);
    expect((await adapter.prompt(sessionId, "write outside")).stopReason).toBe("end_turn");
    await withdrawn;
    expect(ed.permissions).toBe(1);
    expect(modelOutputFor(adapter, "late-1")).toContain("Cancelled");
    // The user's late yes arrives now: still nothing is written, on disk or in the editor. Checked
    // once the agent has read it and a turn has run after it (both come after it on the same pipes).
    await waitFor(() => ed.answered === 1, "the user's late yes");
    await expect(adapter.agent.request("nope/after-the-late-yes", {})).rejects.toMatchObject({ code: -32601 });
    expect((await adapter.prompt(sessionId, "anything else?")).stopReason).toBe("end_turn");
    expect(ed.writes).toEqual([]);
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  it("a turn cancelled while a write waits on its prompt withdraws the prompt and writes nothing", async () => {
    const { ed, setupClient } = editor();
    ed.neverAnswer = true;
    adapter = await startAdapter({ setupClient });
    const target = path.join(await outsideDir(), "cancelled.txt");
    adapter.fake.enqueue(writeOutside(target, "cancel-1"), textResponse("after the cancel"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    const asked = adapter.waitForLine((m) => m.method === "session/request_permission");
    const prompt = adapter.prompt(sessionId, "write outside");
    const request = await asked;
    const withdrawn = adapter.waitForLine(
      (m) => m.method === "$/cancel_request" && (m.params as { requestId?: unknown }).requestId === request.id,
    );
    await adapter.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    await withdrawn;
    expect(ed.writes).toEqual([]);
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  it("a slow yes within the deadline writes once", async () => {
    const { ed, setupClient } = editor();
    ed.answerAfterMs = 1500;
    adapter = await startAdapter({ setupClient, env: { CODEX_ACP_FILE_TOOL_TIMEOUT_SEC: "20" } });
    const target = path.join(await outsideDir(), "slow.txt");
    adapter.fake.enqueue(writeOutside(target, "slow-1"), textResponse("written"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "write outside")).stopReason).toBe("end_turn");
    expect(ed.writes).toEqual([target]);
    expect(ed.buffers.get(target)).toBe("from the model\n");
    expect(modelOutputFor(adapter, "slow-1")).toContain("bytes_written");
  }, 60_000);
});

describe("an edit undone in the editor", () => {
  it("an editor that never returns the file does not hold the next prompt back", async () => {
    let hang = false;
    adapter = await startAdapter({
      setupClient: (app) => {
        app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
          if (hang) await new Promise(() => undefined);
          return { content: await readFile(params.path, "utf8") };
        });
        app.onRequest(acp.methods.client.fs.writeTextFile, () => ({}));
      },
    });
    const file = path.join(adapter.workspace, "notes.txt");
    await writeFile(file, "original\n");
    adapter.fake.enqueue(
      toolCallResponse("write_text_file", { path: file, content: "new\n" }, { namespace: NS, callId: "w-hang" }),
      textResponse("edited"),
      textResponse("next"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "edit notes");
    hang = true;
    expect((await adapter.prompt(sessionId, "go on")).stopReason).toBe("end_turn");
  }, 60_000);

  it("is told to the model with its next prompt, once", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const file = path.join(adapter.workspace, "notes.txt");
    await writeFile(file, "original\n");
    adapter.fake.enqueue(
      toolCallResponse(
        "write_text_file",
        { path: file, content: "the model's version\n" },
        { namespace: NS, callId: "w-1" },
      ),
      textResponse("edited"),
      textResponse("second turn"),
      textResponse("third turn"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "edit notes");
    expect(ed.buffers.get(file)).toBe("the model's version\n");
    // The user rejects the edit in the review panel: the buffer is back to what it was.
    ed.buffers.set(file, "original\n");
    await adapter.prompt(sessionId, "go on");
    const second = JSON.stringify(adapter.fake.requests[2]?.body.input ?? []);
    expect(second).toContain(`${file}: the user rejected, reverted or changed your edit`);
    await adapter.prompt(sessionId, "and on");
    const third = adapter.fake.requests[3]?.body.input as unknown[];
    // Told once: the third turn adds no new notice (the second's stays in the history).
    const notices = JSON.stringify(third).split("the user rejected, reverted or changed your edit").length - 1;
    expect(notices).toBe(1);
  }, 60_000);
});
