// Thread history (as codex 0.169's thread/turns/list {itemsView:"full"} returns it) -> ACP updates.
import { describe, expect, it } from "vitest";
import { replayEntries, replayTurns, turnEntries } from "../../src/bridge/history.js";

// Recorded from codex 0.169.0 against the fake model (ids and times kept, paths shortened).
const turns = [
  {
    id: "turn-1",
    rootTurnId: "turn-1",
    items: [
      {
        type: "userMessage",
        id: "u1",
        clientId: null,
        content: [{ type: "text", text: "please run echo", text_elements: [] }],
      },
      { type: "reasoning", id: "rs_1_0", summary: ["thinking hard"], content: [] },
      {
        type: "commandExecution",
        id: "call_exec1",
        pluginId: null,
        scriptPath: null,
        command: "/bin/bash -lc 'echo hi-there'",
        cwd: "/tmp/ws",
        processId: "69886",
        source: "unifiedExecStartup",
        status: "completed",
        commandActions: [{ type: "unknown", command: "echo hi-there" }],
        aggregatedOutput: "hi-there\n",
        exitCode: 0,
        durationMs: 0,
      },
      {
        type: "agentMessage",
        id: "msg_a",
        text: "ran it",
        phase: null,
        memoryCitation: null,
        delivery: null,
        questions: null,
      },
    ],
    itemsView: "full",
    status: "completed",
    error: null,
  },
  {
    id: "turn-2",
    items: [
      { type: "userMessage", id: "u2", content: [{ type: "text", text: "doomed turn", text_elements: [] }] },
      {
        type: "commandExecution",
        id: "call_exec2",
        command: "sleep 100",
        cwd: "/tmp/ws",
        status: "inProgress",
        commandActions: [],
        aggregatedOutput: null,
        exitCode: null,
      },
    ],
    itemsView: "full",
    status: "interrupted",
    error: null,
  },
];

describe("replayTurns", () => {
  it("for a client with terminal cards: only the newest turn's commands replay as terminals; older ones, and all of a page with more after it, as text", () => {
    const display = { terminalOutput: true };
    const updates = replayTurns(turns, { display });
    const of = (id: string) => updates.filter((u) => "toolCallId" in u && u.toolCallId === id);
    expect(of("call_exec1")).toHaveLength(1);
    expect(JSON.stringify(of("call_exec1"))).not.toContain("terminal");
    expect(JSON.stringify(of("call_exec1"))).toContain("hi-there");
    expect(of("call_exec2")[0]).toMatchObject({
      sessionUpdate: "tool_call",
      status: "failed",
      content: [{ type: "terminal", terminalId: "call_exec2" }],
    });
    const page = replayEntries(turnEntries(turns, { display }, false), { display });
    expect(JSON.stringify(page)).not.toContain("terminal");
  });

  it("replays user text, thoughts, a finished command with its output, and agent text, in order", () => {
    const updates = replayTurns(turns.slice(0, 1));
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      "user_message_chunk",
      "agent_thought_chunk",
      "tool_call",
      "agent_message_chunk",
    ]);
    expect(updates[0]).toEqual({
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "please run echo" },
      messageId: "u1",
    });
    expect(updates[1]).toEqual({
      sessionUpdate: "agent_thought_chunk",
      content: { type: "text", text: "thinking hard" },
      messageId: "rs_1_0",
    });
    expect(updates[2]).toMatchObject({
      sessionUpdate: "tool_call",
      toolCallId: "call_exec1",
      kind: "execute",
      status: "completed",
      title: expect.stringContaining("echo hi-there"),
      rawOutput: expect.objectContaining({ exitCode: 0 }),
    });
    expect(JSON.stringify((updates[2] as { content?: unknown }).content)).toContain("hi-there\\n");
    expect(updates[3]).toEqual({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "ran it" },
      messageId: "msg_a",
    });
  });

  it("a tool left in progress by an interrupted (or killed) turn is shown as failed, never as running", () => {
    const updates = replayTurns(turns);
    const doomed = updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_exec2");
    expect(doomed).toMatchObject({ status: "failed" });
    expect(
      updates
        .filter((u) => u.sessionUpdate === "user_message_chunk")
        .map((u) => (u.content.type === "text" ? u.content.text : "")),
    ).toEqual(["please run echo", "doomed turn"]);
  });

  it("gives each tool call exactly one update", () => {
    const updates = replayTurns(turns);
    const ids = updates.flatMap((u) =>
      u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update" ? [u.toolCallId] : [],
    );
    expect(ids).toEqual(["call_exec1", "call_exec2"]);
  });

  it("turns embedded context and data-URL images back into ACP content blocks", () => {
    const updates = replayTurns([
      {
        id: "t",
        status: "completed",
        items: [
          {
            type: "userMessage",
            id: "u",
            content: [
              { type: "text", text: "look", text_elements: [] },
              { type: "text", text: '<context ref="file:///w/a.ts">\nconst a = 1;\n</context>', text_elements: [] },
              { type: "image", url: "data:image/png;base64,iVBORw0KGgo=" },
              { type: "localImage", path: "/w/shot.png" },
            ],
          },
        ],
      },
    ]);
    expect(updates.map((u) => (u.sessionUpdate === "user_message_chunk" ? u.content : undefined))).toEqual([
      { type: "text", text: "look" },
      { type: "resource", resource: { uri: "file:///w/a.ts", text: "const a = 1;" } },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      { type: "resource_link", uri: "file:///w/shot.png", name: "shot.png" },
    ]);
  });

  it("a stored image path becomes a file URI whichever host stored it (POSIX, a Windows drive, a UNC share, a long path)", () => {
    const links = (paths: string[]) =>
      replayTurns([
        {
          id: "t",
          status: "completed",
          items: [{ type: "userMessage", id: "u", content: paths.map((p) => ({ type: "localImage", path: p })) }],
        },
      ]).map((u) => (u.sessionUpdate === "user_message_chunk" ? u.content : undefined));
    expect(
      links([
        "/Users/me/My Shots/a.png",
        "C:\\Users\\me\\My Shots\\shot.png",
        "d:/w/b.png",
        "\\\\server\\share\\c.png",
        "\\\\?\\C:\\long\\d.png",
        "\\\\?\\UNC\\server\\share\\e.png",
        "relative.png",
      ]),
    ).toEqual([
      { type: "resource_link", uri: "file:///Users/me/My%20Shots/a.png", name: "a.png" },
      { type: "resource_link", uri: "file:///C:/Users/me/My%20Shots/shot.png", name: "shot.png" },
      { type: "resource_link", uri: "file:///d:/w/b.png", name: "b.png" },
      { type: "resource_link", uri: "file://server/share/c.png", name: "c.png" },
      { type: "resource_link", uri: "file:///C:/long/d.png", name: "d.png" },
      { type: "resource_link", uri: "file://server/share/e.png", name: "e.png" },
      { type: "resource_link", uri: "relative.png", name: "relative.png" },
    ]);
  });

  it("skips malformed turns and items (reporting them) instead of failing the whole load", () => {
    const skipped: string[] = [];
    const updates = replayTurns(
      [
        { nope: true },
        {
          id: "t",
          status: "completed",
          items: [{ type: "agentMessage" }, { type: "agentMessage", id: "m", text: "kept" }],
        },
      ],
      { onSkip: (reason) => skipped.push(reason) },
    );
    expect(updates).toEqual([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "kept" }, messageId: "m" },
    ]);
    expect(skipped).toHaveLength(2);
  });

  it("replays no text for empty messages, and a compaction as the same notice the client saw live", () => {
    const updates = replayTurns([
      {
        id: "t",
        status: "completed",
        items: [
          { type: "agentMessage", id: "m", text: "" },
          { type: "contextCompaction", id: "c" },
          { type: "reasoning", id: "r", summary: [], content: ["raw thought"] },
        ],
      },
    ]);
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "notice-c",
        title: "Context compacted.",
        kind: "other",
        status: "completed",
        content: [],
      },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "raw thought" }, messageId: "r" },
    ]);
  });
});

describe("replayTurns: file changes", () => {
  it("shows a completed change with Codex's stored hunks and never reads the disk", () => {
    const updates = replayTurns([
      {
        id: "t",
        status: "completed",
        items: [
          {
            type: "fileChange",
            id: "call_patch",
            status: "completed",
            changes: [{ path: "/definitely/not/on/disk/hello.txt", kind: { type: "add" }, diff: "hello\n" }],
          },
        ],
      },
    ]);
    expect(updates).toEqual([
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "call_patch",
        kind: "edit",
        status: "completed",
        content: [{ type: "diff", path: "/definitely/not/on/disk/hello.txt", oldText: null, newText: "hello\n" }],
      }),
    ]);
  });
});
