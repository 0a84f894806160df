// Which item a file-tool call belongs to (src/editor-files/tool-calls.ts), and that what it remembers
// is bounded by the items in flight (issue 26): a claimed item whose completion never comes (its
// turn was given up, its codex died) was remembered for the session's life.
import { describe, expect, it } from "vitest";
import { FileToolCalls } from "../../src/editor-files/tool-calls.js";
import type { Item } from "../../src/bridge/index.js";
import { mcpItem, note } from "../support/codex-messages.js";

describe("FileToolCalls", () => {
  it("matches a call to its in-flight item, and forgets the claim once the item is no longer in flight", async () => {
    const items = new Map<string, Item>();
    const calls = new FileToolCalls(items);
    for (let i = 0; i < 50; i++) {
      const item = mcpItem({ id: `call_${i}`, tool: "read_text_file", arguments: { path: `/ws/f${i}` } });
      items.set(item.id, item);
      calls.observe(note("item/started", { threadId: "t", turnId: `turn-${i}`, item }));
      expect(await calls.itemIdOf({ tool: "read_text_file", args: { path: `/ws/f${i}` } })).toBe(`call_${i}`);
      // The turn ends without the item's completion (given up): the session drops its items.
      items.clear();
      calls.observe(note("turn/started", { threadId: "t", turn: { id: `turn-${i + 1}` } }));
    }
    expect(calls.claimedCount).toBe(0);
  });
});
