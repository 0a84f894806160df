// The markers a redacted transcript holds where `record` left a value out (redact.ts), and how a
// replay compares a live value with one. Kept apart from redact.ts so the comparison
// (normalise.ts) can use it without an import cycle.
import { createHash } from "node:crypto";

/** Stands for a credential left out: any value, also as part of a longer text. */
export const SECRET_MARKER = "[redacted]";

const FILE_CONTENT_MARKER = /^\[redacted file content: \d+ bytes, \d+ lines?, sha256 ([0-9a-f]{64})\]$/;

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function lineCount(text: string): number {
  if (text === "") return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

/**
 * Stands for a file's content: its size and line count for a reader, the digest of `portable`
 * (the content with the run's paths as placeholders, what a replay normalises the live one to)
 * for the comparison.
 */
export function fileContentMarkerOf(content: string, portable: string): string {
  const lines = lineCount(content);
  return `[redacted file content: ${Buffer.byteLength(content, "utf8")} bytes, ${lines} line${lines === 1 ? "" : "s"}, sha256 ${sha256(portable)}]`;
}

/** The digest a file content marker holds, or undefined when `text` is not one. */
export function fileContentDigest(text: string): string | undefined {
  return FILE_CONTENT_MARKER.exec(text)?.[1];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Whether a live (normalised) value matches a recorded one that holds a marker: a file content
 * marker matches the text with its digest, and only it; a secret marker matches anything in its
 * place, the text around it must be the same. False when `expected` holds no marker.
 */
export function matchesRedaction(expected: string, actual: string): boolean {
  const digest = fileContentDigest(expected);
  if (digest !== undefined) return sha256(actual) === digest;
  if (!expected.includes(SECRET_MARKER)) return false;
  const pattern = expected.split(SECRET_MARKER).map(escapeRegExp).join("[\\s\\S]*?");
  return new RegExp(`^${pattern}$`).test(actual);
}
