// A client's system prompt (ACP's unstable `systemPrompt` on session/new, load, resume and fork):
// on session/new, `append` adds it to the thread's developer instructions (Codex's own base
// instructions stay; the file tools' guidance follows it), `override` replaces Codex's base
// instructions. Codex stores a thread's instructions with its history and keeps them on
// thread/resume and thread/fork whatever is passed (verified with 0.169), so on load, resume and
// fork the prompt is checked and the thread runs with the instructions it was started with. A
// mode or a content block this agent does not support is -32602 before anything is opened, as
// the schema asks ("MUST return an error ... rather than treating it as append or override").
import { z } from "zod";
import { invalidParams, shown } from "../core/index.js";
import type { SessionFeature } from "../core/index.js";

const systemPromptSchema = z.object({
  mode: z.string(),
  content: z.array(z.looseObject({ type: z.string(), text: z.unknown().optional() })),
});

export const systemPromptFeature: SessionFeature = {
  // Unstable `systemPrompt`: `append`, and `override` too.
  sessionCapabilities: () => ({ systemPrompt: { mode: { override: {} } } }),
  name: "system-prompt",

  prepare(opening, services): void {
    const given = (opening.request as { systemPrompt?: unknown }).systemPrompt;
    if (given == null) return;
    const parsed = systemPromptSchema.safeParse(given);
    if (!parsed.success)
      throw invalidParams(
        { systemPrompt: given },
        `Invalid systemPrompt: ${parsed.error.issues[0]?.message ?? "not {mode, content}"}`,
      );
    const { mode, content } = parsed.data;
    if (mode !== "append" && mode !== "override") {
      throw invalidParams(
        { mode },
        `Unsupported systemPrompt mode "${shown(mode)}": this agent supports "append" and "override"`,
      );
    }
    if (content.length === 0) throw invalidParams({ content }, "The systemPrompt content is empty");
    const texts = content.map((block) =>
      block.type === "text" && typeof block.text === "string" ? block.text : undefined,
    );
    const unsupported = content.find((_, i) => texts[i] === undefined);
    if (unsupported)
      throw invalidParams(
        { type: unsupported.type },
        `Unsupported systemPrompt content block "${unsupported.type}": only text blocks are accepted`,
      );
    const text = texts.join("\n\n");
    if (opening.kind !== "new" || opening.forkOf !== undefined) {
      services.log.info(
        { kind: opening.forkOf ? "fork" : opening.kind, mode },
        "systemPrompt checked; a stored thread keeps the instructions it was started with",
      );
      return;
    }
    const s = opening.settings;
    if (mode === "override") s.baseInstructions = text;
    else s.developerInstructions = s.developerInstructions ? `${text}\n\n${s.developerInstructions}` : text;
  },
};
