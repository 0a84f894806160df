// What the client declared it can show changes how notices, compactions and proposed plans
// reach it, live and in history; without a capability the same information is agent text.
import { describe, expect, it } from "vitest";
import { ThreadEventTranslator, replayTurns, type ClientDisplay } from "../../src/bridge/index.js";
import { codexItem, codexTurn, note } from "../support/codex-messages.js";

function translator(display: ClientDisplay, now = () => 0): ThreadEventTranslator {
  return new ThreadEventTranslator({ display: () => display, now });
}

describe("notices", () => {
  it("are ACP notices with a severity for a client that shows them", () => {
    const t = translator({ notices: true });
    expect(t.translate(note("guardianWarning", { threadId: "t", message: "The reviewer declined `rm -rf`." }))).toEqual(
      [{ sessionUpdate: "notice", severity: "warning", title: "The reviewer declined `rm -rf`." }],
    );
    expect(
      t.translate(note("model/rerouted", { threadId: "t", turnId: "u", fromModel: "a", toModel: "b", reason: "x" })),
    ).toEqual([{ sessionUpdate: "notice", severity: "info", title: "Codex switched this turn to the model b." }]);
  });
  it("are a finished card of their own for a client that does not, never agent text (it would read as the answer)", () => {
    const t = translator({});
    const retry = t.translate(
      note("error", {
        threadId: "t",
        turnId: "u",
        willRetry: true,
        error: { message: "stream dropped\nreconnecting" },
      }),
    );
    expect(retry).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: expect.stringMatching(/^notice-/),
        title: "stream dropped",
        kind: "other",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "reconnecting (retrying…)" } }],
      },
    ]);
    const warning = t.translate(note("guardianWarning", { threadId: "t", message: "The reviewer declined `rm -rf`." }));
    expect(warning).toMatchObject([
      { sessionUpdate: "tool_call", title: "Warning: The reviewer declined `rm -rf`.", status: "completed" },
    ]);
    // Each notice is a card of its own.
    expect((warning[0] as { toolCallId: string }).toolCallId).not.toBe((retry[0] as { toolCallId: string }).toolCallId);
  });
});

describe("compactions", () => {
  const item = codexItem({ type: "contextCompaction", id: "c1" });
  it("are compaction_update in_progress then completed for a client that declares compaction", () => {
    const t = translator({ compaction: true });
    expect(t.translate(note("item/started", { threadId: "t", turnId: "u", item }))).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" },
    ]);
    expect(t.translate(note("item/completed", { threadId: "t", turnId: "u", item }))).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" },
    ]);
    expect(replayTurns([{ id: "u", status: "completed", items: [item] }], { display: { compaction: true } })).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" },
    ]);
  });
  it("one the turn ended before it finished is closed as cancelled (interrupted) or failed, not left running", () => {
    const turn = (status: string) => codexTurn("u", status, true);
    for (const [status, closed] of [
      ["interrupted", "cancelled"],
      ["failed", "failed"],
    ] as const) {
      const t = translator({ compaction: true });
      t.translate(note("item/started", { threadId: "t", turnId: "u", item }));
      expect(t.translate(note("turn/completed", { threadId: "t", turn: turn(status) }))).toEqual([
        { sessionUpdate: "compaction_update", compactionId: "c1", status: closed },
      ]);
    }
    const done = translator({ compaction: true });
    done.translate(note("item/started", { threadId: "t", turnId: "u", item }));
    done.translate(note("item/completed", { threadId: "t", turnId: "u", item }));
    expect(done.translate(note("turn/completed", { threadId: "t", turn: turn("completed") }))).toEqual([]);
  });
  it("are a notice, or a card named by the item, otherwise", () => {
    expect(
      translator({ notices: true }).translate(note("item/completed", { threadId: "t", turnId: "u", item })),
    ).toEqual([{ sessionUpdate: "notice", severity: "info", title: "Context compacted." }]);
    const t = translator({});
    expect(t.translate(note("item/started", { threadId: "t", turnId: "u", item }))).toEqual([]);
    expect(t.translate(note("item/completed", { threadId: "t", turnId: "u", item }))).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "notice-c1",
        title: "Context compacted.",
        kind: "other",
        status: "completed",
        content: [],
      },
    ]);
  });
});

describe("proposed plans", () => {
  const plan = codexItem({ type: "plan", id: "p1", text: "# Plan\n1. a\n2. b" });
  it("stream as plan_update markdown documents at a bounded rate, the whole text each time", () => {
    let now = 1000;
    const t = translator({ planUpdates: true }, () => now);
    const delta = (d: string) =>
      t.translate(note("item/plan/delta", { threadId: "t", turnId: "u", itemId: "p1", delta: d }));
    expect(delta("# Plan\n")).toEqual([
      { sessionUpdate: "plan_update", plan: { type: "markdown", planId: "p1", content: "# Plan\n" } },
    ]);
    now += 10;
    expect(delta("1. a\n")).toEqual([]); // too soon: the next one carries it
    now += 200;
    expect(delta("2. b")).toEqual([
      { sessionUpdate: "plan_update", plan: { type: "markdown", planId: "p1", content: "# Plan\n1. a\n2. b" } },
    ]);
    // The completed item says nothing new.
    expect(t.translate(note("item/completed", { threadId: "t", turnId: "u", item: plan }))).toEqual([]);
  });
  it("end with the complete document when the last snapshot was behind, and replay as one", () => {
    let now = 1000;
    const t = translator({ planUpdates: true }, () => now);
    t.translate(note("item/plan/delta", { threadId: "t", turnId: "u", itemId: "p1", delta: "# Plan\n" }));
    now += 1;
    t.translate(note("item/plan/delta", { threadId: "t", turnId: "u", itemId: "p1", delta: "1. a\n2. b" }));
    const doc = {
      sessionUpdate: "plan_update",
      plan: { type: "markdown", planId: "p1", content: "# Plan\n1. a\n2. b" },
    };
    expect(t.translate(note("item/completed", { threadId: "t", turnId: "u", item: plan }))).toEqual([doc]);
    expect(replayTurns([{ id: "u", status: "completed", items: [plan] }], { display: { planUpdates: true } })).toEqual([
      doc,
    ]);
  });
  it("are agent text for a client without plan documents", () => {
    const t = translator({});
    expect(t.translate(note("item/plan/delta", { threadId: "t", turnId: "u", itemId: "p1", delta: "# Plan" }))).toEqual(
      [],
    );
    expect(t.translate(note("item/completed", { threadId: "t", turnId: "u", item: plan }))).toEqual([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "# Plan\n1. a\n2. b" }, messageId: "p1" },
    ]);
  });
});

describe("generated images", () => {
  // Codex 0.169 surfaces the item only when its image tool was offered (a ChatGPT sign-in), which
  // the offline fake model cannot give: the mapping is tested here, on Codex's item shape.
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const item = codexItem({
    type: "imageGeneration",
    id: "ig1",
    status: "completed",
    revisedPrompt: "a red dot",
    result: PNG,
    savedPath: "/ws/red.png",
    failure: null,
    generationId: null,
  });
  it("are image content, with where Codex saved them; the base64 never goes into rawInput", () => {
    const t = translator({});
    const [started] = t.translate(note("item/started", { threadId: "t", turnId: "u", item }));
    expect(started).toMatchObject({
      sessionUpdate: "tool_call",
      title: "Generate an image",
      name: "image_generation",
      rawInput: { prompt: "a red dot" },
    });
    expect(JSON.stringify(started)).not.toContain(PNG);
    const [done] = t.translate(note("item/completed", { threadId: "t", turnId: "u", item }));
    expect(done).toMatchObject({
      sessionUpdate: "tool_call_update",
      status: "completed",
      rawOutput: { status: "completed", savedPath: "/ws/red.png" },
    });
    expect(done && "content" in done ? done.content : []).toEqual([
      { type: "content", content: { type: "image", data: PNG, mimeType: "image/png" } },
      { type: "content", content: { type: "text", text: "Saved to /ws/red.png" } },
    ]);
    expect(JSON.stringify(done?.sessionUpdate === "tool_call_update" ? done.rawOutput : null)).not.toContain(PNG);
  });
  it("a failed generation says why and fails", () => {
    const failed = codexItem({
      type: "imageGeneration",
      id: "ig2",
      status: "failed",
      revisedPrompt: null,
      result: "",
      failure: { type: "usageLimitExceeded", limitId: "x", resetsAt: null },
      generationId: null,
    });
    const [, done] = translator({}).translate(note("item/completed", { threadId: "t", turnId: "u", item: failed }));
    expect(done).toMatchObject({
      status: "failed",
      content: [
        { type: "content", content: { type: "text", text: "Image generation failed: the usage limit is reached." } },
      ],
    });
  });
});

describe("command output chunks (`_meta.terminal_output_delta`)", () => {
  const started = (id: string, commandActions: unknown[], command = "x") =>
    note("item/started", {
      item: { type: "commandExecution", id, command, cwd: "/w", commandActions, status: "inProgress" },
    });
  const chunk = (itemId: string, delta: string) => note("item/commandExecution/outputDelta", { itemId, delta });
  const deltaOf = (updates: unknown[]): unknown =>
    updates.map((u) => (u as { _meta?: { terminal_output_delta?: unknown } })._meta?.terminal_output_delta);

  it("every chunk goes out as it came, at once (no rate, no tail kept), and the end repeats none of it", () => {
    const t = translator({ terminalOutputDelta: true });
    t.translate(started("c", []));
    const sent = ["a", "b", "c"].flatMap((d) => t.translate(chunk("c", d)));
    expect(deltaOf(sent)).toEqual(["a", "b", "c"].map((data) => ({ terminal_id: "c", data })));
    const end = t.translate(
      note("item/completed", {
        item: {
          type: "commandExecution",
          id: "c",
          command: "x",
          cwd: "/w",
          commandActions: [],
          status: "completed",
          aggregatedOutput: "abc",
          exitCode: 0,
        },
      }),
    );
    expect(end).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "Exit code: 0" } }],
        rawOutput: { exitCode: 0 },
      },
    ]);
  });

  it("a command that printed only at its end sends its output as one last chunk", () => {
    const t = translator({ terminalOutputDelta: true });
    t.translate(started("c", []));
    const end = t.translate(
      note("item/completed", {
        item: {
          type: "commandExecution",
          id: "c",
          command: "x",
          cwd: "/w",
          commandActions: [],
          status: "completed",
          aggregatedOutput: "late",
          exitCode: 0,
        },
      }),
    );
    expect(deltaOf(end)).toEqual([{ terminal_id: "c", data: "late" }]);
  });

  it("with Zed's terminals declared too, a command is a terminal fed by terminal_output and a read streams deltas", () => {
    const t = translator({ terminalOutput: true, terminalOutputDelta: true });
    t.translate(started("run", [{ type: "unknown", command: "make" }]));
    t.translate(started("read", [{ type: "read", command: "cat a", name: "a", path: "a" }], "cat a"));
    expect(t.translate(chunk("run", "built"))).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "run",
        _meta: { terminal_output: { terminal_id: "run", data: "built" } },
      },
    ]);
    expect(deltaOf(t.translate(chunk("read", "text")))).toEqual([{ terminal_id: "read", data: "text" }]);
  });
});
