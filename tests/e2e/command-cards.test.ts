// Issue 48 item 4: a card never makes a change look like a read. Real codex, fake model: an
// escalated `find . -name notes.txt -delete` (Codex's parser calls it a search) is never shown as a
// search or a read, its card names the command; a command that asks is `execute` by the time the
// user is asked, even one that only reads; a plain `cat` run without asking is still a read.
import { afterEach, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { startAdapter, type Adapter } from "../support/adapter.js";
import { toolCall, type ScriptedResponse } from "../support/fake-model.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

type Update = acp.SessionNotification["update"];
const escalated = (cmd: string, callId: string) =>
  toolCall("exec_command", { cmd, sandbox_permissions: "require_escalated", justification: "needs it" }, { callId });
const done: ScriptedResponse = { items: [{ type: "message", text: "finished" }] };

/** An adapter whose client answers every permission request with `answer`, noting how many updates it had when asked. */
async function session(responses: ScriptedResponse[], answer: string) {
  const asked: Array<{ request: acp.RequestPermissionRequest; seen: number }> = [];
  adapter = await startAdapter({
    responses,
    setupClient: (app) => {
      app.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        asked.push({ request: params, seen: adapter!.updatesOf(params.sessionId).length });
        return { outcome: { outcome: "selected", optionId: answer } };
      });
    },
  });
  await adapter.initialize();
  const { sessionId } = await adapter.newSession();
  await writeFile(path.join(adapter.workspace, "notes.txt"), "keep me\n");
  return { asked, sessionId, adapter };
}

/** The tool_call and tool_call_updates of one call that say what it is (a kind or a title). */
function cards(updates: Update[], id: string): Array<{ kind?: string | null; title?: string | null }> {
  return updates.flatMap((u) =>
    (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") &&
    u.toolCallId === id &&
    ("kind" in u || "title" in u)
      ? [{ kind: u.kind, title: u.title }]
      : [],
  );
}

describe("command cards", () => {
  it("an escalated find -delete: no card of kind read or search, the card shows the command", async () => {
    const command = "find . -name notes.txt -delete";
    const { asked, sessionId } = await session([{ items: [escalated(command, "d1")] }, done], "reject");
    expect((await adapter!.prompt(sessionId, "clean up")).stopReason).toBe("end_turn");
    expect(asked.map((a) => [a.request.toolCall.kind, a.request.toolCall.title])).toEqual([["execute", command]]);
    const shown = cards(adapter!.updatesOf(sessionId), "d1");
    expect(shown.length).toBeGreaterThan(0);
    for (const card of shown) {
      expect(card.kind).not.toBe("read");
      expect(card.kind).not.toBe("search");
      if (card.title != null) expect(card.title).toContain(command);
    }
    expect(shown[0]).toEqual({ kind: "execute", title: command });
    expect(await readFile(path.join(adapter!.workspace, "notes.txt"), "utf8")).toBe("keep me\n");
  });

  it("an escalated read asks as execute, and its card is execute, titled with the command line, before the user is asked", async () => {
    const command = "cat notes.txt";
    const { asked, sessionId } = await session([{ items: [escalated(command, "r1")] }, done], "allow_once");
    expect((await adapter!.prompt(sessionId, "read it")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    const before = cards(adapter!.updatesOf(sessionId).slice(0, asked[0]!.seen), "r1");
    expect(before.at(-1)).toEqual({ kind: "execute", title: command });
    // Nothing after the question turns it back into a read.
    const after = cards(adapter!.updatesOf(sessionId).slice(asked[0]!.seen), "r1");
    for (const card of after) expect(card.kind === "read" || card.kind === "search").toBe(false);
  });

  it("a plain cat run without asking still shows as a read", async () => {
    const { asked, sessionId } = await session(
      [{ items: [toolCall("exec_command", { cmd: "cat notes.txt" }, { callId: "c1" })] }, done],
      "reject",
    );
    expect((await adapter!.prompt(sessionId, "read it")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(0);
    expect(cards(adapter!.updatesOf(sessionId), "c1")).toEqual([{ kind: "read", title: "Read notes.txt" }]);
  });
});
