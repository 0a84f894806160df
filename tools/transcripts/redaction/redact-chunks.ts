// A model's message streams as many chunks (one per delta): a file's line or a credential cut
// across two of them is in no one string, so redact.ts's per-string rules miss it. Here a run of
// consecutive text chunks of one session (and one kind: message, thought) is read joined, and
// each chunk a hidden span touches is replaced by the marker whole: some of the model's own words
// go with it, none of what was hidden stays.
import type { TranscriptEntry } from "../format.js";

type Json = Record<string, unknown>;

/** The session and kind of a text chunk, and its text; undefined for any other entry. */
function chunkOf(entry: TranscriptEntry): { run: string; text: string } | undefined {
  if (entry.type !== "message" || entry.dir !== "agent->client" || entry.msg.method !== "session/update")
    return undefined;
  const params = entry.msg.params as Json | undefined;
  const update = params?.update as Json | undefined;
  const content = update?.content as Json | undefined;
  const kind = update?.sessionUpdate;
  if (
    typeof kind !== "string" ||
    !kind.endsWith("_chunk") ||
    content?.type !== "text" ||
    typeof content.text !== "string"
  )
    return undefined;
  return { run: `${String(params?.sessionId)}\u0000${kind}`, text: content.text };
}

function withText(entry: TranscriptEntry, text: string): TranscriptEntry {
  if (entry.type !== "message") return entry;
  const params = entry.msg.params as Json;
  const update = params.update as Json;
  return {
    ...entry,
    msg: { ...entry.msg, params: { ...params, update: { ...update, content: { ...(update.content as Json), text } } } },
  };
}

/**
 * The entries with every chunk that a span of `hidden` (given the joined text of its run, the
 * [start, end) spans to hide) touches replaced by `marker`.
 */
export function redactAcrossChunks(
  entries: TranscriptEntry[],
  hidden: (joined: string) => Array<[number, number]>,
  marker: string,
): TranscriptEntry[] {
  const out = [...entries];
  let run: { key: string; at: number[]; texts: string[] } | undefined;
  const close = (): void => {
    if (!run || run.at.length < 2) return;
    const starts: number[] = [];
    let length = 0;
    for (const text of run.texts) {
      starts.push(length);
      length += text.length;
    }
    for (const [from, to] of hidden(run.texts.join(""))) {
      run.at.forEach((index, i) => {
        const start = starts[i]!;
        const end = start + run!.texts[i]!.length;
        if (start < to && from < end) out[index] = withText(out[index]!, marker);
      });
    }
  };
  entries.forEach((entry, index) => {
    const chunk = chunkOf(entry);
    if (chunk && run?.key === chunk.run) {
      run.at.push(index);
      run.texts.push(chunk.text);
      return;
    }
    close();
    run = chunk ? { key: chunk.run, at: [index], texts: [chunk.text] } : undefined;
  });
  close();
  return out;
}

/** Each line of `text` without its line break (a CRLF's "\r" too), with where it starts. */
export function linesOf(text: string): Array<{ line: string; start: number }> {
  const out: Array<{ line: string; start: number }> = [];
  let start = 0;
  for (const raw of text.split("\n")) {
    out.push({ line: raw.endsWith("\r") ? raw.slice(0, -1) : raw, start });
    start += raw.length + 1;
  }
  return out;
}

/** The spans of `text` where one of `secrets` occurs, and the lines of it that are one of `lines`. */
export function spansOf(text: string, secrets: readonly string[], lines: ReadonlySet<string>): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const secret of secrets) {
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1))
      spans.push([at, at + secret.length]);
  }
  for (const { line, start } of linesOf(text)) if (lines.has(line)) spans.push([start, start + line.length]);
  return spans;
}
