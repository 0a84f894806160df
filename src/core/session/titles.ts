// Session titles as ACP shows them, derived the way Codex's own thread list does: a thread's name,
// else its first user message on one line, at most TITLE_MAX characters. Pure; the titles feature
// sends them as a session runs, session/list and load (stored-sessions) use them for stored threads.
import { textHead } from "../../text/index.js";

export const TITLE_MAX = 80;

/** A one-line title from free text (a first user message or a thread's preview); undefined if empty. */
export function deriveTitle(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  // Embedded editor context is not what the user typed.
  const withoutContext = text.replace(/<context ref="[^"]*">[\s\S]*?<\/context>/g, " ");
  const line = withoutContext.replace(/\s+/g, " ").trim();
  if (!line) return undefined;
  if (line.length <= TITLE_MAX) return line;
  const cut = textHead(line, TITLE_MAX - 1);
  const atWord = cut.lastIndexOf(" ");
  return `${(atWord > TITLE_MAX / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

/** The title of a stored thread: its name, else one derived from its preview. */
export function threadTitle(thread: { name?: string | null; preview?: string | null }): string | undefined {
  return thread.name?.trim() || deriveTitle(thread.preview);
}

/** Codex's seconds-since-epoch as the ISO 8601 string ACP wants. */
export function isoTime(unixSeconds: number | null | undefined): string | undefined {
  if (typeof unixSeconds !== "number" || !Number.isFinite(unixSeconds)) return undefined;
  return new Date(unixSeconds * 1000).toISOString();
}
