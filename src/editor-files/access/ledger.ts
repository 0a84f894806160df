// What this session wrote through the editor, so that an edit the user later undid is not lost on
// the model. Zed answers fs/write_text_file once the text is in the buffer; a Reject in its review
// panel afterwards is never reported to the agent. The ledger keeps a digest of each text written
// (not the text: a session may write many large files) and, on request, compares it with what the
// editor holds now.
import { createHash } from "node:crypto";
import { withLfEndings } from "./lines.js";

/** An edit the model believes in (or does not) that the files no longer agree with. */
export type EditDrift = {
  path: string;
  /**
   * changed: the editor's text is no longer what was written (the user rejected, reverted or edited it);
   * gone: the editor cannot read the file any more;
   * landed-late: the model was told the call failed (cancelled, past its deadline), but the editor applied it.
   */
  state: "changed" | "gone" | "landed-late";
};

type Entry = { digest: string; late: boolean };

/** Line endings left out (withLfEndings): an editor that stores our "\r\n" as "\n" has not changed the edit. */
const digestOf = (text: string): string => createHash("sha256").update(withLfEndings(text), "utf8").digest("base64");

export class EditLedger {
  private readonly written = new Map<string, Entry>();

  /** `late`: the call had been given up on (the model was told it failed) when the editor applied it. */
  record(p: string, text: string, late = false): void {
    this.written.set(p, { digest: digestOf(text), late });
  }

  forget(p: string): void {
    this.written.delete(p);
  }

  get size(): number {
    return this.written.size;
  }

  /**
   * On a read of `p` served by the editor: the drift to tell the model about, if any. Told once: the
   * entry is dropped when it is reported.
   */
  driftOnRead(p: string, text: string): EditDrift | undefined {
    const entry = this.written.get(p);
    const drift = entry && driftOf(p, entry, text);
    if (drift) this.written.delete(p);
    return drift;
  }

  /**
   * Every recorded file compared with the editor's text now (`read` resolves undefined when the
   * editor cannot read it); the ledger is emptied: each edit is checked once.
   */
  async takeDrift(read: (p: string) => Promise<string | undefined>): Promise<EditDrift[]> {
    const entries = [...this.written];
    this.written.clear();
    const drift = await Promise.all(
      entries.map(async ([p, entry]): Promise<EditDrift | undefined> => {
        const text = await read(p);
        if (text === undefined) return entry.late ? undefined : { path: p, state: "gone" };
        return driftOf(p, entry, text);
      }),
    );
    return drift.filter((d): d is EditDrift => d !== undefined);
  }
}

/**
 * Where the editor's `text` and the model's picture of `p` disagree: a write the model believes in
 * that is not there, or one it was told failed that is.
 */
function driftOf(p: string, entry: Entry, text: string): EditDrift | undefined {
  const same = entry.digest === digestOf(text);
  if (same === !entry.late) return undefined;
  return { path: p, state: same ? "landed-late" : "changed" };
}

/** What the model is told, one line per file. */
export function describeDrift(drift: readonly EditDrift[]): string {
  const line = (d: EditDrift): string =>
    d.state === "changed"
      ? `- ${d.path}: the user rejected, reverted or changed your edit; the file no longer holds what you wrote.`
      : d.state === "gone"
        ? `- ${d.path}: the file you wrote is no longer there (the user rejected or removed it).`
        : `- ${d.path}: your write was reported as failed (cancelled or past its deadline), but the editor applied it afterwards; the file holds that edit.`;
  return [
    "Since your last edits, the files changed in the editor:",
    ...drift.map(line),
    "Read these files again before building on them.",
  ].join("\n");
}
