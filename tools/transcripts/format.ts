// The transcript file format (contracts/transcript-format.md): JSONL, a header line then one
// line per JSON-RPC message (or per non-JSON line, "raw"), in the order the proxy saw them.
import { constants as bufferConstants } from "node:buffer";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { z } from "zod";

export const TRANSCRIPT_VERSION = 1;

const DirectionSchema = z.enum(["client->agent", "agent->client"]);
export type Direction = z.infer<typeof DirectionSchema>;

const HeaderSchema = z.looseObject({
  type: z.literal("header"),
  version: z.literal(TRANSCRIPT_VERSION),
  agent: z.looseObject({
    command: z.array(z.string()).min(1),
    cwd: z.string().optional(),
  }),
  protocolVersion: z.number().int().nonnegative(),
  clientCapabilities: z.record(z.string(), z.unknown()).optional(),
  /** Scripted responses for the project's fake model server: makes a run of codex-cli-acp deterministic. */
  fakeModel: z.looseObject({ responses: z.array(z.unknown()) }).optional(),
  /** Extra environment for the agent under test. Values may use the path placeholders. */
  env: z.record(z.string(), z.string()).optional(),
  workspace: z
    .object({
      /** Files created (relative to the fresh workspace, <CWD>) before the agent starts. */
      files: z.record(z.string(), z.string()).optional(),
      /**
       * Folders created before the agent starts: `<DIR_n>` a fresh folder beside the workspace (a
       * folder of the recording's client outside its cwd), or a folder inside one (`<CWD>/sub`).
       */
      directories: z.array(z.string()).optional(),
    })
    .optional(),
  /**
   * Credentials and file contents were replaced by markers when recorded (redact.ts); `replay
   * --update` redacts what it writes back the same way.
   */
  redacted: z.boolean().optional(),
  /** Recorded absolute paths that stand for a placeholder, e.g. {"<CWD>": "/home/me/proj"}. */
  paths: z.record(z.string(), z.string()).optional(),
  recordedAt: z.string(),
});
export type TranscriptHeader = z.infer<typeof HeaderSchema>;

/** Any JSON object; ACP-level validity is checked by replay (schema.ts), not by the parser. */
const JsonRpcObjectSchema = z.record(z.string(), z.unknown());

const MessageLineSchema = z.object({
  type: z.literal("message"),
  dir: DirectionSchema,
  t: z.number().nonnegative(),
  msg: JsonRpcObjectSchema,
});
export type MessageLine = z.infer<typeof MessageLineSchema>;

const RawLineSchema = z.object({
  type: z.literal("raw"),
  dir: DirectionSchema,
  t: z.number().nonnegative(),
  text: z.string(),
});
export type RawLine = z.infer<typeof RawLineSchema>;

const EntrySchema = z.discriminatedUnion("type", [MessageLineSchema, RawLineSchema]);
export type TranscriptEntry = z.infer<typeof EntrySchema>;

/** An entry with the 1-based line number it came from (0 for entries that were never in a file). */
export type LocatedEntry = TranscriptEntry & { line: number };

export interface Transcript {
  file: string;
  header: TranscriptHeader;
  entries: LocatedEntry[];
}

export class TranscriptFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = "TranscriptFormatError";
  }
}

function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(line)"}: ${issue.message}`)
    .join("; ");
}

/** Parses a whole transcript. Throws TranscriptFormatError naming the file and 1-based line. */
export function parseTranscript(text: string, fileName: string): Transcript {
  const lines = text.split("\n");
  // A final newline leaves one empty string at the end; blank lines elsewhere are errors.
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 0) throw new TranscriptFormatError(fileName, 1, "empty transcript: expected a header line");

  let header: TranscriptHeader | undefined;
  const entries: LocatedEntry[] = [];
  lines.forEach((rawLine, index) => {
    const lineNo = index + 1;
    const lineText = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    let value: unknown;
    try {
      value = JSON.parse(lineText);
    } catch (error) {
      throw new TranscriptFormatError(fileName, lineNo, `not valid JSON (${(error as Error).message})`);
    }
    if (index === 0) {
      const parsed = HeaderSchema.safeParse(value);
      if (!parsed.success) {
        throw new TranscriptFormatError(fileName, lineNo, `invalid header: ${describeZodError(parsed.error)}`);
      }
      header = parsed.data;
      return;
    }
    const parsed = EntrySchema.safeParse(value);
    if (!parsed.success) {
      throw new TranscriptFormatError(fileName, lineNo, `invalid entry: ${describeZodError(parsed.error)}`);
    }
    entries.push({ ...parsed.data, line: lineNo });
  });
  if (!header) throw new TranscriptFormatError(fileName, 1, "missing header");
  return { file: fileName, header, entries };
}

/** Serialises a transcript back to JSONL (one object per line, trailing newline). */
export function serializeTranscript(header: TranscriptHeader, entries: readonly TranscriptEntry[]): string {
  const out = [JSON.stringify(header)];
  for (const entry of entries) {
    const { line: _line, ...rest } = entry as LocatedEntry;
    out.push(JSON.stringify(rest));
  }
  return out.join("\n") + "\n";
}

/** The largest transcript read: its text must fit in one string (UTF-8 never decodes to more characters than bytes). */
const MAX_TRANSCRIPT_BYTES = bufferConstants.MAX_STRING_LENGTH;

/**
 * A transcript file's text. Refuses what is not a regular file (a FIFO would be waited on for
 * ever, a device read without end) and a file larger than a string can hold, saying so.
 */
export async function readTranscriptText(file: string): Promise<string> {
  // Opened without blocking, so that a FIFO with no writer is looked at rather than waited on.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${file} is not a regular file`);
    if (info.size > MAX_TRANSCRIPT_BYTES)
      throw new Error(
        `${file} is too large (${Math.round(info.size / 1024 / 1024)} MiB; a transcript is read whole, at most ${Math.floor(MAX_TRANSCRIPT_BYTES / 1024 / 1024)} MiB)`,
      );
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}
