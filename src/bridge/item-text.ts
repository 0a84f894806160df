// The text a completed item shows, the same live and in history: agent messages and plans as
// agent text, reasoning as thoughts. (Compactions, and plans for clients with plan documents,
// are in display.ts. A review's result also arrives as an agent message, inline: the
// exitedReviewMode item's copy of it is not shown twice.)
import type { Item } from "./view.js";

export type ItemText = { kind: "agent_message_chunk" | "agent_thought_chunk"; text: string };

/** Text of a completed text item; undefined for items that show none (or are tool calls). */
export function itemText(item: Item): ItemText | undefined {
  switch (item.type) {
    case "agentMessage":
    case "plan":
      return item.text ? { kind: "agent_message_chunk", text: item.text } : undefined;
    case "reasoning": {
      const text = item.summary.join("\n\n") || item.content.join("\n\n");
      return text ? { kind: "agent_thought_chunk", text } : undefined;
    }
    default:
      return undefined;
  }
}
