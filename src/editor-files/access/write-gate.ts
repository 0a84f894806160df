// Whether a write may go ahead, on its own: the session's write policy (refused, or asked about),
// the user's answer, the parent folder the write contract requires, and the last check just before
// the write. access.ts runs every write and patch past these, whichever backend then writes.
import path from "node:path";
import { cancelledBeforeWrite, ErrorCode, FileToolError, pathChanged } from "./errors.js";
import { statIfExists } from "./local.js";
import type { FileChange } from "./patch-files.js";
import { askReason, canonicalEntryPath, canonicalPath, decideCanonical, type SessionMode } from "./policy.js";

/** Session policy for writes, read at every call (the mode can change during a session). */
export interface WritePolicy {
  mode(): SessionMode;
  roots(): readonly string[];
  /**
   * Asked when decideWrite says "ask" for any of `changes` (one question for a whole patch);
   * resolve true to go ahead. Absent = treat "ask" as denied.
   */
  ask?(req: { changes: FileChange[]; call?: unknown; signal?: AbortSignal }): Promise<boolean>;
}

/** Throws when the mode forbids writing any of the canonical `paths`; true when one of them needs the user's yes. */
export function refuseOrAsk(
  policy: WritePolicy | undefined,
  paths: readonly string[],
  named: (p: string) => string = (p) => p,
): boolean {
  if (!policy) return false;
  const mode = policy.mode();
  let ask = false;
  for (const p of paths) {
    const decision = decideCanonical({ mode, roots: policy.roots(), canonical: p });
    if (decision === "deny")
      throw new FileToolError(ErrorCode.Permission, `Permission denied: ${named(p)} (session mode is ${mode})`);
    if (decision === "ask") ask = true;
  }
  return ask;
}

/** Asks the user once for `changes`; throws the contract's refusal unless they said yes (or -32007 if the call was given up on). */
export async function confirm(
  policy: WritePolicy | undefined,
  changes: FileChange[],
  o: { call?: unknown; signal?: AbortSignal | undefined },
  named: (p: string) => string = (p) => p,
): Promise<void> {
  const ok = policy?.ask
    ? await policy.ask({ changes, call: o.call, ...(o.signal ? { signal: o.signal } : {}) })
    : false;
  if (o.signal?.aborted) throw cancelledBeforeWrite(changes[0]?.path ?? "the file");
  if (ok) return;
  const reasons = changes.map((c) => ({
    path: c.path,
    reason: policy ? askReason(c.path, policy.roots()) : undefined,
  }));
  const asked = reasons.find((r) => r.reason !== undefined) ?? reasons[0];
  // No reason of the policy's own: the mode asks for every write (Review Edits).
  throw new FileToolError(
    ErrorCode.Permission,
    `Permission denied: ${named(asked?.path ?? "")} (${asked?.reason ? `${asked.reason}; not approved` : "not approved in review"})`,
  );
}

/** The write contract's -32001 when the folder a write goes to is missing (before the editor is asked). */
export async function parentDirectory(judged: string, given: string): Promise<void> {
  const st = await statIfExists(path.dirname(judged)).catch(() => undefined);
  if (st?.isDirectory()) return;
  // Through a link the missing folder is its target's: named, with where the path given leads.
  const viaLink =
    path.dirname(given) !== path.dirname(judged) &&
    (await statIfExists(path.dirname(given)).catch(() => undefined))?.isDirectory();
  throw new FileToolError(
    ErrorCode.NotFound,
    viaLink
      ? `Parent directory not found: ${path.dirname(judged)} (where ${given} leads)`
      : `Parent directory not found: ${path.dirname(given)}`,
  );
}

/**
 * The last check before a write (or an unlink): a call given up on writes nothing, and the path
 * must resolve as it did when the policy judged it (no link swapped in meanwhile, no second hard
 * link where none was asked about). `entry`: the path names the entry itself (Delete, Move source).
 */
export function beforeWrite(
  policy: WritePolicy | undefined,
  judged: string,
  asked: boolean,
  signal: AbortSignal | undefined,
  given: string,
  entry = false,
): void {
  if (signal?.aborted) throw cancelledBeforeWrite(given);
  if ((entry ? canonicalEntryPath(judged) : canonicalPath(judged)) !== judged) throw pathChanged(given);
  if (!asked && refuseOrAsk(policy, [judged], () => given)) throw pathChanged(given);
}
