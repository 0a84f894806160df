// ACP prompt content -> app-server `turn/start` input.
import { RequestError, type ContentBlock } from "@agentclientprotocol/sdk/unstable";
import type { UserInput } from "../codex/index.js";
import { shown } from "./errors.js";

function text(t: string): UserInput {
  return { type: "text", text: t, text_elements: [] };
}

/**
 * Text stays text; a resource link becomes a mention the model can open; an embedded
 * text resource becomes context wrapped with its URI (the editor's view of the file,
 * unsaved edits included); an image becomes a data URL.
 */
export function toUserInput(blocks: ContentBlock[]): UserInput[] {
  const input: UserInput[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        input.push(text(block.text));
        break;
      case "resource_link": {
        const label = block.title ?? block.name;
        input.push(text(`[@${label}](${block.uri})`));
        break;
      }
      case "resource": {
        const res = block.resource;
        if ("text" in res) {
          input.push(text(`<context ref="${res.uri}">\n${res.text}\n</context>`));
        } else if (res.mimeType?.startsWith("image/")) {
          input.push({ type: "image", url: `data:${res.mimeType};base64,${res.blob}` });
        } else {
          input.push(text(`[@${res.uri}](${res.uri}) (binary content not included)`));
        }
        break;
      }
      case "image": {
        if (block.data) input.push({ type: "image", url: `data:${block.mimeType};base64,${block.data}` });
        else if (block.uri) input.push({ type: "image", url: block.uri });
        else throw RequestError.invalidParams(undefined, "An image content block needs `data` or `uri`");
        break;
      }
      case "audio":
        throw RequestError.invalidParams(undefined, "Audio prompts are not supported by codex-cli-acp");
      default:
        throw RequestError.invalidParams(
          undefined,
          `Unsupported content block type: ${shown(String((block as { type: unknown }).type))}`,
        );
    }
  }
  if (input.length === 0) throw RequestError.invalidParams(undefined, "The prompt is empty");
  return input;
}
