// Issue 12: multi-root workspaces. session/new (load, resume) `additionalDirectories` are
// workspace roots for the file tools' write rule and writable roots of Codex's sandbox.
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import { textResponse, toolCall, toolCallResponse } from "../../tools/fake-model/index.js";
import { answerPermissions, startAdapter, type Adapter } from "../support/adapter.js";

const NS = "mcp__acp_fs";
let adapter: Adapter | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** /tmp is writable in Codex's workspace-write sandbox whatever the roots: /var/tmp is not. */
async function tempDir(prefix: string, base = os.tmpdir()): Promise<string> {
  const d = await realpath(await mkdtemp(path.join(base, prefix)));
  dirs.push(d);
  return d;
}

describe("additional directories", () => {
  it("are advertised at initialize", async () => {
    adapter = await startAdapter();
    const init = await adapter.initialize();
    expect(init.agentCapabilities?.sessionCapabilities?.additionalDirectories).toEqual({});
  });

  it("a write into an additional directory proceeds without a prompt; a write outside every root asks", async () => {
    const extra = await tempDir("cca-extra-");
    const elsewhere = await tempDir("cca-elsewhere-");
    const { asked, setupClient } = answerPermissions("reject_once");
    adapter = await startAdapter({ setupClient });
    adapter.fake.enqueue(
      toolCallResponse(
        "write_text_file",
        { path: path.join(extra, "inside.txt"), content: "in\n" },
        { namespace: NS, callId: "w_in" },
      ),
      toolCallResponse(
        "write_text_file",
        { path: path.join(elsewhere, "outside.txt"), content: "out\n" },
        { namespace: NS, callId: "w_out" },
      ),
      textResponse("done"),
    );
    await adapter.initialize();
    const { sessionId } = await adapter.newSession(undefined, { additionalDirectories: [extra] });
    expect((await adapter.prompt(sessionId, "write both")).stopReason).toBe("end_turn");
    expect(await readFile(path.join(extra, "inside.txt"), "utf8")).toBe("in\n");
    expect(asked.map((a) => a.toolCall.toolCallId)).toEqual(["w_out"]);
    expect(existsSync(path.join(elsewhere, "outside.txt"))).toBe(false);
  });

  it("are writable roots of Codex's sandbox: a command writes there, and not into a directory that is no root", async () => {
    const extra = await tempDir("cca-extra-", "/var/tmp");
    const other = await tempDir("cca-other-", "/var/tmp");
    const { asked, setupClient } = answerPermissions("reject");
    adapter = await startAdapter({ setupClient });
    const target = path.join(extra, "from-shell.txt");
    const denied = path.join(other, "from-shell.txt");
    adapter.fake.enqueue(
      { items: [toolCall("exec_command", { cmd: `echo hi > ${target}` }, { callId: "sh" })] },
      { items: [toolCall("exec_command", { cmd: `echo hi > ${denied}` }, { callId: "sh2" })] },
      textResponse("done"),
    );
    await adapter.initialize();
    const { sessionId } = await adapter.newSession(undefined, { additionalDirectories: [extra] });
    expect((await adapter.prompt(sessionId, "write with the shell")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(0);
    expect(await readFile(target, "utf8")).toBe("hi\n");
    expect(existsSync(denied)).toBe(false);
  });

  it("apply on resume too", async () => {
    const extra = await tempDir("cca-extra-");
    const { asked, setupClient } = answerPermissions("reject_once");
    // A workspace-write config: codex 0.169 resumes a thread in an untrusted folder with the
    // configuration's sandbox, not the one it last ran with (user-config.test.ts covers that).
    adapter = await startAdapter({ setupClient, userConfig: 'sandbox_mode = "workspace-write"' });
    adapter.fake.enqueue(
      textResponse("first"),
      toolCallResponse(
        "write_text_file",
        { path: path.join(extra, "later.txt"), content: "later\n" },
        { namespace: NS, callId: "w_later" },
      ),
      textResponse("done"),
    );
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "hello");
    await adapter.agent.request(acp.methods.agent.session.close, { sessionId });
    await adapter.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: adapter.workspace,
      mcpServers: [],
      additionalDirectories: [extra],
    });
    expect((await adapter.prompt(sessionId, "write there")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(0);
    expect(await readFile(path.join(extra, "later.txt"), "utf8")).toBe("later\n");
  });

  it("a relative, missing or whole-disk directory is refused with -32602 naming it", async () => {
    adapter = await startAdapter();
    await adapter.initialize();
    await expect(adapter.newSession(undefined, { additionalDirectories: ["relative/dir"] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("relative/dir"),
    });
    await expect(
      adapter.newSession(undefined, { additionalDirectories: ["/nonexistent/cca-dir"] }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("/nonexistent/cca-dir") });
    // Writable without asking, these would be the whole disk or the kernel's views.
    for (const dir of ["/", "/proc"]) {
      await expect(adapter.newSession(undefined, { additionalDirectories: [dir] })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("cannot be a workspace root"),
      });
    }
    // Nothing of the refused openings is left behind: a session still opens.
    expect((await adapter.newSession()).sessionId).toBeTruthy();
  });
});
