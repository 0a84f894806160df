// app-server mcpToolCall items of the embedded file tools -> ACP tool calls (src/bridge/file-tools.ts).
// Item shapes as codex 0.169 sends them (seen in tests/e2e/file-tools.test.ts runs).
import { describe, expect, it } from "vitest";
import {
  completeFileToolItem,
  describeFileToolItem,
  readTitle,
  truncateRaw,
  RAW_TEXT_LIMIT,
} from "../../src/bridge/file-tools.js";
import { completedItemUpdate, describeItem } from "../../src/bridge/items.js";
import { mcpItem as item } from "../support/codex-messages.js";

describe("describeFileToolItem", () => {
  it("a windowed read: kind read, the range in the title, the first line in locations", () => {
    expect(describeFileToolItem(item({ arguments: { path: "/work/numbers.txt", line: 10, limit: 5 } }))).toEqual({
      title: "Read /work/numbers.txt (lines 10-14)",
      kind: "read",
      locations: [{ path: "/work/numbers.txt", line: 10 }],
      rawInput: { path: "/work/numbers.txt", line: 10, limit: 5 },
    });
  });

  it("titles for whole files, open-ended windows and single lines", () => {
    expect(readTitle("/a", undefined, undefined)).toBe("Read /a");
    expect(readTitle("/a", 7, undefined)).toBe("Read /a (from line 7)");
    expect(readTitle("/a", undefined, 20)).toBe("Read /a (lines 1-20)");
    expect(readTitle("/a", 3, 1)).toBe("Read /a (line 3)");
    expect(describeFileToolItem(item({ arguments: { path: "/a", line: null, limit: null } }))?.locations).toEqual([
      { path: "/a", line: 1 },
    ]);
  });

  it("a write: kind edit, rawInput content truncated past 10 KB", () => {
    const content = "x".repeat(RAW_TEXT_LIMIT + 100);
    const view = describeFileToolItem(
      item({ tool: "write_text_file", arguments: JSON.stringify({ path: "/w/new.txt", content }) }),
    );
    expect(view).toMatchObject({
      title: "Write /w/new.txt",
      kind: "edit",
      locations: [{ path: "/w/new.txt", line: 1 }],
    });
    const raw = view?.rawInput as { content: string };
    expect(raw.content).toBe(`${"x".repeat(RAW_TEXT_LIMIT)}…[truncated, ${RAW_TEXT_LIMIT + 100} bytes]`);
  });

  it("never splits a multi-byte character when truncating", () => {
    const t = truncateRaw("é".repeat(RAW_TEXT_LIMIT));
    expect(t).toMatch(/^é+…\[truncated, 20480 bytes\]$/);
    expect(truncateRaw("short")).toBe("short");
  });

  it("other servers' tools are not ours (generic mapping)", () => {
    expect(describeFileToolItem(item({ server: "github" }))).toBeUndefined();
    expect(describeFileToolItem(item({ tool: "delete_file" }))).toBeUndefined();
    expect(completeFileToolItem(item({ server: "github", status: "completed" }))).toBeUndefined();
    expect(describeItem(item({ server: "github", tool: "x" }), undefined).kind).toBe("other");
  });
});

describe("completeFileToolItem", () => {
  it("a read: completed with the contract object as rawOutput (content cut past 10 KB)", () => {
    const big = "y".repeat(RAW_TEXT_LIMIT * 2);
    const u = completeFileToolItem(
      item({
        status: "completed",
        result: {
          content: [{ type: "text", text: big }],
          structuredContent: { content: big, total_lines: 1, returned_lines: 1, has_more: false },
          _meta: null,
        },
      }),
    );
    expect(u).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed" });
    expect((u?.rawOutput as { content: string }).content).toContain("[truncated, 20480 bytes]");
    expect(u?.content).toBeUndefined();
  });

  it("a write: the diff from the result's _meta, structuredContent as rawOutput", () => {
    const u = completedItemUpdate(
      item({
        tool: "write_text_file",
        status: "completed",
        arguments: { path: "/w/a.txt", content: "new\n" },
        result: {
          content: [{ type: "text", text: "Wrote 4 bytes to /w/a.txt (overwritten)" }],
          structuredContent: { success: true, bytes_written: 4, created: false },
          _meta: { "codex-cli-acp/diff": { path: "/w/a.txt", oldText: "old\n", newText: "new\n" } },
        },
      }),
      undefined,
    );
    expect(u).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      status: "completed",
      content: [{ type: "diff", path: "/w/a.txt", oldText: "old\n", newText: "new\n" }],
      rawOutput: { success: true, bytes_written: 4, created: false },
    });
  });

  it("a tool error result: failed, the message as text content, {code, message} as rawOutput", () => {
    const message = "File not found: /w/missing.txt";
    for (const status of ["completed", "failed"]) {
      const u = completeFileToolItem(
        item({
          status,
          result: {
            content: [{ type: "text", text: message }],
            structuredContent: { code: -32001, message },
            _meta: null,
          },
        }),
      );
      expect(u).toEqual({
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: message } }],
        rawOutput: { code: -32001, message },
      });
    }
  });

  it("a transport failure (no result, an error): failed with codex's message", () => {
    const u = completeFileToolItem(item({ status: "failed", error: { message: "tool call timed out" } }));
    expect(u).toMatchObject({
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "tool call timed out" } }],
      rawOutput: { message: "tool call timed out" },
    });
  });
});

describe("the MCP server and the bridge agree on the wire", () => {
  it("the bridge shows every tool the server lists, under the server name the config registers", async () => {
    const mcp = await import("../../src/editor-files/endpoint/index.js");
    const contract = await import("../../src/editor-files/contract/index.js");
    const fileTools = await import("../../src/bridge/file-tools.js");
    const args: Record<string, unknown> = {
      read_text_file: { path: "/a" },
      write_text_file: { path: "/a", content: "x" },
      apply_patch: { input: "*** Begin Patch\n*** Delete File: /a\n*** End Patch" },
    };
    const kinds = mcp.TOOL_DEFINITIONS.map(
      (t) =>
        describeFileToolItem(
          item({ id: t.name, server: contract.FILE_TOOLS_SERVER, tool: t.name, arguments: args[t.name] }),
        )?.kind,
    );
    expect(kinds).toEqual(["read", "edit", "delete"]);
    expect(
      fileTools.describeFileToolItem(item({ id: "x", server: "other", tool: "read_text_file", arguments: {} })),
    ).toBeUndefined();
  });
});
