// Input validation for both tools (zod). Messages are the contracts' exact texts; every
// failure is a FileToolError with code -32600. The first issue found is reported.
import path from "node:path";
import { z } from "zod";
import { ErrorCode, FileToolError } from "./errors.js";

export type ReadParams = { path: string; line?: number; limit?: number };
export type WriteParams = { path: string; content: string };
export type PatchParams = { input: string };

const show = (v: unknown): string => (typeof v === "string" ? v : (JSON.stringify(v) ?? String(v)));

const absolutePath = z
  .string({ error: "Invalid params: path must be a string" })
  .refine((p) => !p.includes("\0"), { error: "Invalid params: path must not contain NUL bytes", abort: true })
  .refine((p) => path.isAbsolute(p), { error: (iss) => `Path must be absolute: ${show(iss.input)}` });

function positiveInt(what: "Line number" | "Limit") {
  const notInt = (iss: { input?: unknown }): string => `${what} must be an integer: ${show(iss.input)}`;
  return z
    .number({ error: notInt })
    .int({ error: notInt })
    .min(1, { error: (iss) => `${what} must be >= 1: ${show(iss.input)}` })
    .nullish()
    .transform((v) => v ?? undefined);
}

const ReadSchema = z.object({
  path: absolutePath,
  line: positiveInt("Line number"),
  limit: positiveInt("Limit"),
});

const WriteSchema = z.object({
  path: absolutePath,
  content: z.string({ error: "Invalid params: content must be a string" }),
});

const PatchSchema = z.object({
  input: z.string({ error: "Invalid params: input must be a string" }),
});

function fail(error: z.ZodError): never {
  const first = error.issues[0];
  const message =
    first === undefined
      ? "Invalid params"
      : first.path.length === 0
        ? `Invalid params: ${first.message}`
        : first.message;
  throw new FileToolError(ErrorCode.InvalidParams, message);
}

/** Validates read_text_file input; throws FileToolError(-32600) with the contract's message. */
export function validateReadParams(input: unknown): ReadParams {
  const r = ReadSchema.safeParse(input);
  if (!r.success) fail(r.error);
  const out: ReadParams = { path: r.data.path };
  if (r.data.line !== undefined) out.line = r.data.line;
  if (r.data.limit !== undefined) out.limit = r.data.limit;
  return out;
}

/** Validates write_text_file input; throws FileToolError(-32600) with the contract's message. */
export function validateWriteParams(input: unknown): WriteParams {
  const r = WriteSchema.safeParse(input);
  if (!r.success) fail(r.error);
  return { path: r.data.path, content: r.data.content };
}

/** Validates apply_patch input; throws FileToolError(-32600) with the contract's message. */
export function validatePatchParams(input: unknown): PatchParams {
  const r = PatchSchema.safeParse(input);
  if (!r.success) fail(r.error);
  return { input: r.data.input };
}
