// Which mode a stored thread was left in, where Codex's own record cannot tell: Review Edits runs
// Codex with Read Only's approval policy and sandbox (the two differ only in what the file tools
// do with a write), so a loaded thread's settings match both; and codex 0.169 resumes a thread in a
// folder it does not trust with the configuration's sandbox (read-only there), so Auto came back
// as Read Only. The user's choice is kept per thread (the core's ThreadMemory, in session-modes/),
// only while the thread is in such a mode (the modes feature decides which).
import { ThreadMemory } from "../../core/index.js";

type MemoryLog = ConstructorParameters<typeof ThreadMemory>[1];

export class ModeMemory extends ThreadMemory {
  constructor(dir: string, log: MemoryLog) {
    // A mode id as this agent names them; the file holds nothing else.
    super(dir, log, { what: "mode", value: /^[a-z][a-z-]{0,39}$/, maxBytes: 64 });
  }
}
