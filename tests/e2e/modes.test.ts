// Issue 4: modes (read-only / auto / full-access) and config options (model, reasoning effort)
// change what Codex does from the very next turn.
import { afterEach, describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { answerPermissions, startAdapter, type Adapter } from "../support/adapter.js";
import { makeStoredSession } from "../support/stored-session.js";
import { waitFor } from "../support/wait-for.js";
import { applyPatch, toolCall, type ScriptedResponse } from "../support/fake-model.js";

let adapter: Adapter | undefined;
/** A restarted agent's predecessor: its fake model, Codex home and workspace are the new one's too, so it closes last. */
let predecessor: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  await predecessor?.close();
  predecessor = undefined;
});

/** The agent started again (the editor closed and opened) on the same Codex home, fake model and workspace. */
async function restart(setupClient?: (app: acp.ClientApp) => void): Promise<Adapter> {
  const first = adapter!;
  first.child.kill();
  predecessor = first;
  adapter = await startAdapter({
    fake: first.fake,
    home: first.home,
    workspace: first.workspace,
    ...(setupClient ? { setupClient } : {}),
  });
  await adapter.initialize();
  return adapter;
}

const done: ScriptedResponse = { items: [{ type: "message", text: "ok" }] };
const patchTo = (callId: string, from: string, to: string): ScriptedResponse => ({
  items: [applyPatch(`*** Begin Patch\n*** Update File: a.txt\n@@\n-${from}\n+${to}\n*** End Patch`, { callId })],
});

/** The model patches the workspace's a.txt: the user is asked (and rejects it), and the file stays as it was. */
async function expectPatchAskedAndRejected(
  sessionId: string,
  callId: string,
  asked: acp.RequestPermissionRequest[],
): Promise<void> {
  const file = path.join(adapter!.workspace, "a.txt");
  await writeFile(file, "one\n");
  adapter!.fake.enqueue(patchTo(callId, "one", "two"), done);
  await adapter!.prompt(sessionId, "edit");
  expect(asked.map((a) => a.toolCall.toolCallId)).toContain(callId);
  expect(await readFile(file, "utf8")).toBe("one\n");
}

async function start(responses: ScriptedResponse[]) {
  const { asked, setupClient } = answerPermissions("reject");
  adapter = await startAdapter({ responses, setupClient });
  await adapter.initialize();
  const session = await adapter.newSession();
  return { asked, session };
}

describe("modes", () => {
  it("session/new offers the five modes, auto current", async () => {
    const { session } = await start([]);
    expect(session.modes).toEqual({
      currentModeId: "auto",
      availableModes: [
        { id: "read-only", name: "Read Only", description: expect.any(String) },
        { id: "review-edits", name: "Review Edits", description: expect.any(String) },
        { id: "auto", name: "Auto", description: expect.any(String) },
        { id: "auto-review", name: "Auto-review", description: expect.any(String) },
        { id: "full-access", name: "Full Access", description: expect.any(String) },
      ],
    });
  });

  it("Review Edits: a file-tool write inside the workspace is asked first, with only Allow and Reject; refused, nothing is written", async () => {
    const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-review-")));
    const file = (name: string) => path.join(workspace, name);
    const write = (name: string, callId: string): ScriptedResponse => ({
      items: [toolCall("write_text_file", { path: file(name), content: "x\n" }, { callId, namespace: "mcp__acp_fs" })],
    });
    const { asked, setupClient } = answerPermissions("reject_once");
    adapter = await startAdapter({
      responses: [write("in.txt", "w1"), done, write("auto.txt", "w2"), done],
      setupClient,
      workspace,
    });
    await adapter.initialize();
    const session = await adapter.newSession();
    await adapter.agent.request(acp.methods.agent.session.setMode, {
      sessionId: session.sessionId,
      modeId: "review-edits",
    });
    expect((await adapter.prompt(session.sessionId, "write in the workspace")).stopReason).toBe("end_turn");
    expect(existsSync(file("in.txt"))).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.toolCall.title).toBe(`Create ${file("in.txt")} (for your review)`);
    expect(asked[0]?.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    expect(asked[0]?.toolCall.content).toEqual([{ type: "diff", path: file("in.txt"), oldText: null, newText: "x\n" }]);
    // In Auto the same write inside the workspace is not asked about.
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "auto" });
    expect((await adapter.prompt(session.sessionId, "again")).stopReason).toBe("end_turn");
    expect(await readFile(file("auto.txt"), "utf8")).toBe("x\n");
    expect(asked).toHaveLength(1);
    await rm(workspace, { recursive: true, force: true });
  });

  it("auto-review: Codex's reviewer answers an approval instead of the user, and the user sees its decision", async () => {
    const target = path.join("/var/tmp", `cca-auto-review-${process.pid}-${Date.now()}.txt`);
    const escalated = toolCall(
      "exec_command",
      { cmd: `echo hi > ${target}`, sandbox_permissions: "require_escalated", justification: "write outside" },
      { callId: "g1" },
    );
    // The second model request is the reviewer's (model codex-auto-review); it approves.
    const { asked, session } = await start([
      { items: [escalated] },
      { items: [{ type: "message", text: '{"outcome":"allow","risk_level":"low","rationale":"harmless echo"}' }] },
      done,
    ]);
    try {
      await adapter!.agent.request(acp.methods.agent.session.setMode, {
        sessionId: session.sessionId,
        modeId: "auto-review",
      });
      expect((await adapter!.prompt(session.sessionId, "write it")).stopReason).toBe("end_turn");
      expect(asked).toHaveLength(0);
      expect(adapter!.fake.requests[1]!.body.model).toBe("codex-auto-review");
      expect(await readFile(target, "utf8")).toBe("hi\n");
      expect(JSON.stringify(adapter!.updatesOf(session.sessionId))).toContain("Automatic approval review approved");
    } finally {
      await rm(target, { force: true });
    }
  });

  it("auto edits the workspace without asking; after set_mode read-only the very next patch asks (and a reject leaves the file)", async () => {
    const { asked, session } = await start([patchTo("p1", "one", "two"), done, patchTo("p2", "two", "three"), done]);
    const { sessionId } = session;
    const file = path.join(adapter!.workspace, "a.txt");
    await writeFile(file, "one\n");
    expect((await adapter!.prompt(sessionId, "edit")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(0);
    expect(await readFile(file, "utf8")).toBe("two\n");

    await adapter!.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "read-only" });
    expect((await adapter!.prompt(sessionId, "edit again")).stopReason).toBe("end_turn");
    expect(asked.map((a) => a.toolCall.toolCallId)).toEqual(["p2"]);
    expect(await readFile(file, "utf8")).toBe("two\n");
    const updates = adapter!.updatesOf(sessionId);
    expect(updates).toContainEqual({ sessionUpdate: "current_mode_update", currentModeId: "read-only" });
    const configUpdate = updates.find((u) => u.sessionUpdate === "config_option_update");
    expect(configUpdate).toMatchObject({
      configOptions: expect.arrayContaining([expect.objectContaining({ id: "mode", currentValue: "read-only" })]),
    });
  });

  it("a mode chosen before a /review reaches Codex's review (review/start carries no settings): in read-only its shell cannot write the workspace", async () => {
    const write = (callId: string): ScriptedResponse => ({
      items: [toolCall("exec_command", { cmd: "echo changed > notes.txt" }, { callId })],
    });
    const { asked, session } = await start([write("r1"), { items: [{ type: "message", text: "reviewed" }] }]);
    const file = path.join(adapter!.workspace, "notes.txt");
    await writeFile(file, "original\n");
    // Switched, with no prompt between: the review is the first turn Codex runs in the new mode.
    await adapter!.agent.request(acp.methods.agent.session.setMode, {
      sessionId: session.sessionId,
      modeId: "read-only",
    });
    expect((await adapter!.prompt(session.sessionId, "/review the notes")).stopReason).toBe("end_turn");
    expect(adapter!.fake.requests.length).toBeGreaterThanOrEqual(2); // the command ran and its output went back
    expect(await readFile(file, "utf8")).toBe("original\n");
    // Codex's sandbox refused it, or Codex asked and the user said no: never written unasked.
    expect(asked.length === 0 || asked.every((a) => a.toolCall.toolCallId === "r1")).toBe(true);
  });

  it("a write outside the workspace: auto's sandbox stops it (Codex asks; rejected), after set_mode full-access the next turn runs it without asking", async () => {
    // Not under /tmp or $TMPDIR: workspace-write lets Codex write there.
    // Somewhere Codex's workspace-write sandbox never allows: not the workspace, not /tmp or
    // $TMPDIR (where a CI checkout may well live).
    const parent = existsSync("/var/tmp") ? "/var/tmp" : os.homedir();
    const outside = await realpath(await mkdtemp(path.join(parent, "cca-outside-")));
    expect(outside.startsWith(`${await realpath(os.tmpdir())}${path.sep}`)).toBe(false);
    const target = path.join(outside, "free.txt");
    const write = (callId: string): ScriptedResponse => ({
      items: [toolCall("exec_command", { cmd: `echo free > ${target}` }, { callId })],
    });
    const { asked, session } = await start([write("c1"), done, write("c2"), done]);
    expect((await adapter!.prompt(session.sessionId, "try in auto")).stopReason).toBe("end_turn");
    expect(await readFile(target, "utf8").catch(() => undefined)).toBeUndefined();
    const askedInAuto = asked.length;
    await adapter!.agent.request(acp.methods.agent.session.setMode, {
      sessionId: session.sessionId,
      modeId: "full-access",
    });
    expect((await adapter!.prompt(session.sessionId, "try in full access")).stopReason).toBe("end_turn");
    expect(asked).toHaveLength(askedInAuto);
    expect(await readFile(target, "utf8")).toBe("free\n");
    await rm(outside, { recursive: true, force: true });
  });

  it("the mode comes back as it was when the session is loaded or resumed by a restarted agent (and the next turn keeps it)", async () => {
    const { asked, setupClient } = answerPermissions("reject");
    adapter = await startAdapter({ responses: [done], setupClient });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "read-only" });
    await adapter.prompt(sessionId, "a turn in read-only");
    const { workspace } = adapter;
    await restart(setupClient);
    const loaded = await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("read-only");
    expect(loaded.configOptions?.find((o) => o.id === "mode")).toMatchObject({ currentValue: "read-only" });
    const resumed = await adapter.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe("read-only");
    // Still read-only for Codex: the next patch asks (and the reject leaves the file).
    await expectPatchAskedAndRejected(sessionId, "p-after", asked);
  });

  it("Auto, never switched, comes back as Auto after a restart in a folder Codex does not trust (Codex resumes it read-only), and runs as Auto", async () => {
    adapter = await startAdapter({ responses: [done, done] });
    await adapter.initialize();
    const { sessionId, modes } = await adapter.newSession();
    expect(modes?.currentModeId).toBe("auto");
    await adapter.prompt(sessionId, "a turn in auto");
    // Another thread, left in Full Access, whose memory says Auto (as if another client had run it
    // since in Full Access): what Codex resumes it with stands.
    const other = (await adapter.newSession()).sessionId;
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId: other, modeId: "full-access" });
    await adapter.prompt(other, "a turn in full access");
    const { fake, home, workspace } = adapter;
    await writeFile(path.join(home.codexHome, "codex-cli-acp", "session-modes", other), "auto\n");
    await restart();
    const loaded = await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("auto");
    const resumed = await adapter.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe("auto");
    expect(
      (
        await adapter.agent.request(acp.methods.agent.session.load, {
          sessionId: other,
          cwd: workspace,
          mcpServers: [],
        })
      ).modes?.currentModeId,
    ).toBe("full-access");
    // Codex runs the next turn as Auto: the workspace is writable for its commands.
    fake.enqueue(
      { items: [toolCall("exec_command", { cmd: "echo auto > made-in-auto.txt" }, { callId: "w1" })] },
      done,
    );
    await adapter.prompt(sessionId, "write in the workspace");
    expect(await readFile(path.join(workspace, "made-in-auto.txt"), "utf8")).toBe("auto\n");
  });

  it("Auto-review comes back as Auto-review, not Custom, after a restart in a folder Codex does not trust (Codex resumes it read-only with its reviewer), and runs as Auto-review", async () => {
    adapter = await startAdapter({ responses: [done] });
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto-review" });
    await adapter.prompt(sessionId, "a turn in auto-review");
    const { fake, workspace } = adapter;
    await restart();
    const loaded = await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("auto-review");
    expect(loaded.configOptions?.find((o) => o.id === "mode")).toMatchObject({ currentValue: "auto-review" });
    const resumed = await adapter.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe("auto-review");
    // Codex runs the next turn with the workspace writable, as Auto-review does.
    fake.enqueue(
      { items: [toolCall("exec_command", { cmd: "echo reviewed > made-in-auto-review.txt" }, { callId: "w1" })] },
      done,
    );
    await adapter.prompt(sessionId, "write in the workspace");
    expect(await readFile(path.join(workspace, "made-in-auto-review.txt"), "utf8")).toBe("reviewed\n");
    // ...and its reviewer, not the user, answers an escalation (the reviewer's request is the second).
    const target = path.join("/var/tmp", `cca-auto-review-back-${process.pid}-${Date.now()}.txt`);
    const escalated = toolCall(
      "exec_command",
      { cmd: `echo hi > ${target}`, sandbox_permissions: "require_escalated", justification: "write outside" },
      { callId: "g1" },
    );
    fake.enqueue(
      { items: [escalated] },
      { items: [{ type: "message", text: '{"outcome":"allow","risk_level":"low","rationale":"harmless echo"}' }] },
      done,
    );
    const reviewFrom = fake.requests.length;
    try {
      expect((await adapter.prompt(sessionId, "write outside")).stopReason).toBe("end_turn");
      expect(fake.requests[reviewFrom + 1]!.body.model).toBe("codex-auto-review");
      expect(await readFile(target, "utf8")).toBe("hi\n");
    } finally {
      await rm(target, { force: true });
    }
  });

  it("Review Edits comes back as Review Edits after a restart, not as Read Only (same Codex settings); switched to Read Only, it comes back Read Only", async () => {
    const { asked, setupClient } = answerPermissions("reject");
    adapter = await startAdapter({ responses: [done, done], setupClient });
    await adapter.initialize();
    const reviewing = (await adapter.newSession()).sessionId;
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId: reviewing, modeId: "review-edits" });
    await adapter.prompt(reviewing, "a turn in review-edits");
    const readOnly = (await adapter.newSession()).sessionId;
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId: readOnly, modeId: "review-edits" });
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId: readOnly, modeId: "read-only" });
    await adapter.prompt(readOnly, "a turn in read-only");
    const { home, workspace } = adapter;
    // Kept for the thread in Review Edits only: the one that left it has no file.
    const kept = path.join(home.codexHome, "codex-cli-acp", "session-modes");
    let files: string[] = [];
    await waitFor(
      async () => (files = await readdir(kept).catch(() => [])).join() === reviewing,
      () => `only ${reviewing} in ${kept} (found: ${files.join(", ")})`,
    );
    await restart(setupClient);
    const loaded = await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId: reviewing,
      cwd: workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("review-edits");
    expect(loaded.configOptions?.find((o) => o.id === "mode")).toMatchObject({ currentValue: "review-edits" });
    const resumed = await adapter.agent.request(acp.methods.agent.session.resume, {
      sessionId: reviewing,
      cwd: workspace,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe("review-edits");
    const other = await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId: readOnly,
      cwd: workspace,
      mcpServers: [],
    });
    expect(other.modes?.currentModeId).toBe("read-only");
    // Review Edits for the file tools too: the write inside the workspace is asked (Read Only would refuse it unasked).
    await expectPatchAskedAndRejected(reviewing, "p-review", asked);
  });

  it("a thread last run with settings no mode describes (another client's) is loaded in its own Custom mode, which runs as it did; auto from a switch", async () => {
    const { asked, setupClient } = answerPermissions("reject");
    adapter = await startAdapter({
      setupClient,
      userConfig: 'approval_policy = "never"\nsandbox_mode = "workspace-write"',
    });
    // Stored as Codex's own CLI leaves it: approval "never" with a workspace-write sandbox.
    const stored = await makeStoredSession({
      codexHome: adapter.home.codexHome,
      cwd: adapter.workspace,
      turns: 2,
      outputBytes: 100,
    });
    await adapter.initialize();
    const loaded = await adapter.agent.request(acp.methods.agent.session.load, {
      sessionId: stored.threadId,
      cwd: adapter.workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("custom");
    expect(loaded.modes?.availableModes.find((m) => m.id === "custom")?.description).toContain("approvals never");
    // Under "never" Codex refuses an escalated command without asking: what the mode says.
    const escalated = (callId: string) => ({
      items: [
        toolCall(
          "exec_command",
          { cmd: "echo hi > out.txt", sandbox_permissions: "require_escalated", justification: "test" },
          { callId },
        ),
      ],
    });
    adapter.fake.enqueue(escalated("esc1"), done);
    await adapter.prompt(stored.threadId, "run it");
    expect(asked).toHaveLength(0);
    // auto asks before it.
    await adapter.agent.request(acp.methods.agent.session.setMode, { sessionId: stored.threadId, modeId: "auto" });
    adapter.fake.enqueue(escalated("esc2"), done);
    await adapter.prompt(stored.threadId, "run it again");
    expect(asked.map((a) => a.toolCall.toolCallId)).toEqual(["esc2"]);
  });

  it("an unknown mode is invalid params", async () => {
    const { session } = await start([]);
    await expect(
      adapter!.agent.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "yolo" }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});

describe("config options", () => {
  it("session/new lists mode, collaboration mode, model (from model/list), reasoning effort (the model's efforts), speed and prompt suggestions", async () => {
    const { session } = await start([]);
    const byId = Object.fromEntries((session.configOptions ?? []).map((o) => [o.id, o]));
    expect(Object.keys(byId)).toEqual([
      "mode",
      "collaboration_mode",
      "model",
      "reasoning_effort",
      "service_tier",
      "prompt_suggestions",
    ]);
    expect(byId.mode).toMatchObject({ type: "select", category: "mode", currentValue: "auto" });
    expect(byId.model).toMatchObject({ type: "select", category: "model", currentValue: "fake-model" });
    // The spec names mode, model and thought_level; any other category takes a leading underscore.
    for (const o of session.configOptions ?? [])
      expect(
        ["mode", "model", "thought_level"].includes(o.category ?? "") || (o.category ?? "").startsWith("_"),
        `${o.id}: ${o.category}`,
      ).toBe(true);
    expect(byId.collaboration_mode).toMatchObject({ category: "_collaboration_mode" });
    // Every log line is one JSON object with one value per key (pino's own pid is not repeated).
    for (const line of adapter!.stderr().split("\n").filter(Boolean))
      expect(line.match(/"pid":/g)?.length ?? 0, line).toBeLessThanOrEqual(1);
    const models = (byId.model as { options: Array<{ value: string }> }).options.map((o) => o.value);
    expect(models).toContain("fake-model");
    expect(models).toContain("gpt-5.5");
    expect(byId.reasoning_effort).toMatchObject({
      type: "select",
      category: "thought_level",
      currentValue: "medium",
      options: [
        { value: "low", name: "Low" },
        { value: "medium", name: "Medium" },
        { value: "high", name: "High" },
        { value: "xhigh", name: "Extra high" },
      ].map((o) => expect.objectContaining(o)),
    });
  });

  it("the chosen model and effort reach the model request of the next turn", async () => {
    const { session } = await start([done, done]);
    const { sessionId } = session;
    await adapter!.prompt(sessionId, "first");
    expect(adapter!.fake.requests[0]!.body.model).toBe("fake-model");
    const res = await adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "gpt-5.5",
    });
    expect(res.configOptions.find((o) => o.id === "model")).toMatchObject({ currentValue: "gpt-5.5" });
    const res2 = await adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "reasoning_effort",
      value: "high",
    });
    expect(res2.configOptions.find((o) => o.id === "reasoning_effort")).toMatchObject({ currentValue: "high" });
    await adapter!.prompt(sessionId, "second");
    expect(adapter!.fake.requests[1]!.body.model).toBe("gpt-5.5");
    expect(adapter!.fake.requests[1]!.body.reasoning).toMatchObject({ effort: "high" });
  });

  it("unknown values are invalid params", async () => {
    const { session } = await start([]);
    const set = (configId: string, value: string) =>
      adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId: session.sessionId,
        configId,
        value,
      });
    await expect(set("model", "no-such-model")).rejects.toMatchObject({ code: -32602 });
    await expect(set("reasoning_effort", "ludicrous")).rejects.toMatchObject({ code: -32602 });
    await expect(set("colour", "blue")).rejects.toMatchObject({ code: -32602 });
  });
});

describe("speed (service tier)", () => {
  it("offered for a model with service tiers; the choice reaches the model request, standard sends none", async () => {
    const { session } = await start([done, done, done]);
    const { sessionId } = session;
    const afterModel = await adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "gpt-6-sol",
    });
    expect(afterModel.configOptions.find((o) => o.id === "service_tier")).toMatchObject({
      type: "select",
      currentValue: "priority",
      options: [{ value: "default", name: "Standard" }, expect.objectContaining({ value: "priority", name: "Fast" })],
    });
    await adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "service_tier",
      value: "priority",
    });
    await adapter!.prompt(sessionId, "fast");
    expect(adapter!.fake.requests.at(-1)!.body.service_tier).toBe("priority");
    await adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "service_tier",
      value: "default",
    });
    await adapter!.prompt(sessionId, "standard");
    expect(adapter!.fake.requests.at(-1)!.body.service_tier ?? null).toBeNull();
    await expect(
      adapter!.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "service_tier",
        value: "warp",
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});

describe("fast mode as a switch", () => {
  it("a client with boolean options gets the model's one fast tier as a boolean; true and false reach the model", async () => {
    adapter = await startAdapter({ responses: [done, done] });
    await adapter.initialize({ session: { notices: {}, configOptions: { boolean: {} } } });
    const { sessionId } = await adapter.newSession();
    const afterModel = await adapter.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "gpt-6-sol",
    });
    expect(afterModel.configOptions.find((o) => o.id === "service_tier")).toMatchObject({
      type: "boolean",
      name: "Fast",
      currentValue: true,
    });
    const off = await adapter.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "service_tier",
      type: "boolean",
      value: false,
    });
    expect(off.configOptions.find((o) => o.id === "service_tier")).toMatchObject({
      type: "boolean",
      currentValue: false,
    });
    await adapter.prompt(sessionId, "standard");
    expect(adapter.fake.requests.at(-1)!.body.service_tier ?? null).toBeNull();
    await adapter.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "service_tier",
      type: "boolean",
      value: true,
    });
    await adapter.prompt(sessionId, "fast");
    expect(adapter.fake.requests.at(-1)!.body.service_tier).toBe("priority");
    // A switch only where it means something.
    await expect(
      adapter.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "model",
        type: "boolean",
        value: true,
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});
