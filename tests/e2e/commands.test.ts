// Issue 4: slash commands advertised after session/new and run through Codex's own methods.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAdapter, messageText, type Adapter } from "../support/adapter.js";
import { textResponse, type ScriptedResponse } from "../support/fake-model.js";
import { waitFor } from "../support/wait-for.js";

let adapter: Adapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

async function start(responses: ScriptedResponse[] = []) {
  adapter = await startAdapter({ responses });
  await adapter.initialize();
  const { sessionId } = await adapter.newSession();
  await waitFor(
    () => adapter!.updatesOf(sessionId).some((u) => u.sessionUpdate === "available_commands_update"),
    "the available commands",
  );
  return sessionId;
}

describe("slash commands", () => {
  it("available_commands_update lists the built-in commands, then Codex's skills", async () => {
    const sessionId = await start();
    const update = adapter!.updatesOf(sessionId).find((u) => u.sessionUpdate === "available_commands_update");
    const builtIn =
      update && "availableCommands" in update
        ? update.availableCommands.filter((c) => !c.description.startsWith("Skill: "))
        : [];
    expect({ sessionUpdate: "available_commands_update", availableCommands: builtIn }).toEqual({
      sessionUpdate: "available_commands_update",
      availableCommands: [
        { name: "review", description: expect.any(String), input: { hint: expect.any(String) } },
        { name: "compact", description: expect.any(String) },
        { name: "init", description: expect.any(String) },
        { name: "status", description: expect.any(String) },
        { name: "logout", description: expect.any(String) },
        { name: "rename", description: expect.any(String), input: { hint: expect.any(String) } },
        { name: "skills", description: expect.any(String) },
        { name: "mcp", description: expect.any(String), input: { hint: expect.any(String) } },
        { name: "review-branch", description: expect.any(String), input: { hint: expect.any(String) } },
        { name: "review-commit", description: expect.any(String), input: { hint: expect.any(String) } },
        { name: "plan", description: expect.any(String), input: { hint: expect.any(String) } },
        { name: "goal", description: expect.any(String), input: { hint: expect.any(String) } },
      ],
    });
  });

  it("/status answers locally with model, mode and directory (no model request)", async () => {
    const sessionId = await start();
    expect((await adapter!.prompt(sessionId, "/status")).stopReason).toBe("end_turn");
    const text = messageText(adapter!.updatesOf(sessionId));
    expect(text).toContain("Model: fake-model (reasoning effort: medium)");
    expect(text).toContain("Mode: Auto (approvals: on-request, sandbox: workspace-write)");
    expect(text).toContain(`Directory: ${adapter!.workspace}`);
    expect(adapter!.fake.requests).toHaveLength(0);
  });

  it("/init asks the model to write AGENTS.md", async () => {
    const sessionId = await start([{ items: [{ type: "message", text: "wrote it" }] }]);
    expect((await adapter!.prompt(sessionId, "/init")).stopReason).toBe("end_turn");
    expect(JSON.stringify(adapter!.fake.requests[0]!.body.input)).toContain("AGENTS.md");
    expect(messageText(adapter!.updatesOf(sessionId))).toBe("wrote it");
  });

  it("/review runs a Codex review turn and shows its result", async () => {
    const sessionId = await start([{ items: [{ type: "message", text: "No issues found in the changes." }] }]);
    expect((await adapter!.prompt(sessionId, "/review the error handling")).stopReason).toBe("end_turn");
    expect(JSON.stringify(adapter!.fake.requests[0]!.body.input)).toContain("the error handling");
    // Once: the review's result arrives as an agent message and in the exitedReviewMode item.
    expect(messageText(adapter!.updatesOf(sessionId)).split("No issues found in the changes.")).toHaveLength(2);
  });

  it("/status sent while another prompt streams waits its turn: answered after it, its text after that answer's", async () => {
    const sessionId = await start([{ ...textResponse("one two three four five six", { deltas: 6 }), delayMs: 150 }]);
    const order: string[] = [];
    const first = adapter!.prompt(sessionId, "a long answer").then((r) => void order.push(`first:${r.stopReason}`));
    await adapter!.waitForLine((m) => JSON.stringify(m).includes('"agent_message_chunk"'));
    const status = adapter!.prompt(sessionId, "/status").then((r) => void order.push(`status:${r.stopReason}`));
    await Promise.all([first, status]);
    expect(order).toEqual(["first:end_turn", "status:end_turn"]);
    const chunks = adapter!
      .updatesOf(sessionId)
      .flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []));
    expect(chunks.findIndex((t) => t.startsWith("**Session status**"))).toBe(chunks.length - 1);
  });

  it("/compact compacts the thread", async () => {
    const sessionId = await start([
      { items: [{ type: "message", text: "hello" }] },
      { items: [{ type: "message", text: "SUMMARY" }] },
    ]);
    await adapter!.prompt(sessionId, "hi");
    expect((await adapter!.prompt(sessionId, "/compact")).stopReason).toBe("end_turn");
    expect(adapter!.fake.requests).toHaveLength(2); // the summary request
    // A notice for this client (it declares notices; tests/e2e/display.test.ts has the others).
    expect(adapter!.updatesOf(sessionId)).toContainEqual({
      sessionUpdate: "notice",
      severity: "info",
      title: "Context compacted.",
    });
  });

  it("a project skill is a command: /<skill> sends $<skill> with Codex's skill item, and the model gets the skill", async () => {
    adapter = await startAdapter({ responses: [{ items: [{ type: "message", text: "Hello!" }] }] });
    await mkdir(path.join(adapter.workspace, ".agents/skills/greet"), { recursive: true });
    await writeFile(
      path.join(adapter.workspace, ".agents/skills/greet/SKILL.md"),
      "---\nname: greet\ndescription: Greets the user warmly. More text.\n---\nSay hello in French.\n",
    );
    await adapter.initialize();
    const { sessionId } = await adapter.newSession();
    await waitFor(
      () => adapter!.updatesOf(sessionId).some((u) => u.sessionUpdate === "available_commands_update"),
      "the available commands",
    );
    const update = adapter.updatesOf(sessionId).find((u) => u.sessionUpdate === "available_commands_update");
    expect(update && "availableCommands" in update ? update.availableCommands : []).toContainEqual({
      name: "greet",
      description: "Skill: Greets the user warmly.",
      input: { hint: expect.any(String) },
    });
    expect((await adapter.prompt(sessionId, "/greet briefly")).stopReason).toBe("end_turn");
    const input = JSON.stringify(adapter.fake.requests[0]!.body.input);
    expect(input).toContain("$greet briefly");
    expect(input).toContain("Say hello in French.");
    expect((await adapter.prompt(sessionId, "/skills")).stopReason).toBe("end_turn");
    expect(messageText(adapter.updatesOf(sessionId))).toContain("`/greet`: Greets the user warmly.");
  });

  it("/mcp shows the session's MCP servers and their state", async () => {
    // A turn first: Codex has connected to its servers by the time it calls the model.
    const sessionId = await start([{ items: [{ type: "message", text: "hi" }] }]);
    await adapter!.prompt(sessionId, "hello");
    const until = Date.now() + 20_000;
    do expect((await adapter!.prompt(sessionId, "/mcp")).stopReason).toBe("end_turn");
    while (!/\*\*acp_fs\*\*: connected/.test(messageText(adapter!.updatesOf(sessionId))) && Date.now() < until);
    expect(messageText(adapter!.updatesOf(sessionId))).toMatch(/\*\*acp_fs\*\*: connected, \d+ tools/);
    expect(adapter!.fake.requests).toHaveLength(1);
  }, 30_000);

  it("/review-branch where there is no git repository ends with Codex's error instead of waiting forever, and the session goes on", async () => {
    const sessionId = await start([{ items: [{ type: "message", text: "after" }] }]);
    // Codex reports the failure (an error, the thread's status) but no turn/completed for it.
    await expect(adapter!.prompt(sessionId, "/review-branch main")).rejects.toThrow(/git/i);
    expect((await adapter!.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
    expect(messageText(adapter!.updatesOf(sessionId))).toContain("after");
  });

  it("/review-commit reviews a commit", async () => {
    const sessionId = await start([{ items: [{ type: "message", text: "Looks fine." }] }]);
    expect((await adapter!.prompt(sessionId, "/review-commit abc1234")).stopReason).toBe("end_turn");
    expect(JSON.stringify(adapter!.fake.requests[0]!.body.input)).toContain("abc1234");
  });

  it("an unknown /command goes to the model unchanged", async () => {
    const sessionId = await start([{ items: [{ type: "message", text: "ok" }] }]);
    expect((await adapter!.prompt(sessionId, "/frobnicate now")).stopReason).toBe("end_turn");
    expect(JSON.stringify(adapter!.fake.requests[0]!.body.input)).toContain("/frobnicate now");
  });
});
