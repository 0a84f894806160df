// How far V8's young generation (where new objects are made) may grow. V8 doubles it under a burst
// of allocation, up to 2 x 16 MiB, and keeps it while allocation goes on: a long-lived editor
// process streaming answers then sits 20-40 MiB higher for good. The bin keeps it at its first
// size (measured, npm run bench: RSS while streaming 105 -> 85 MB, throughput unchanged).
// A stored session's history is another matter: hundreds of MB of Codex's pages pass through in
// seconds, each page alive while it is written, and a young generation of 1 MiB collected them
// 1,154 times in one 300 MB session/load (1.1 s of the agent's 3.1 s of CPU). While something
// like that holds it, it may grow; once the last holder lets go it grows no more, and V8's memory
// reducer shrinks it back within seconds of quiet (measured: 32 MiB -> 1 MiB ~17 s after).
import { setFlagsFromString } from "node:v8";

/** Read by V8 whenever it would grow the young generation: 1 keeps it as it is. */
const KEPT_SMALL = "--semi-space-growth-factor=1";
/** Four times per step: V8's maximum (16 MiB a semi-space) in two steps from its first 1 MiB. */
const WIDENED = "--semi-space-growth-factor=4";

/** Lets the young generation grow while held; call the returned function to let go (once is enough). */
export type YoungGeneration = { widen(): () => void };

/** For the bin's start: the young generation stays at its first size unless widened. */
export function keepYoungGenerationSmall(setFlags: (flag: string) => void = setFlagsFromString): void {
  setFlags(KEPT_SMALL);
}

/** One per process: holders are counted, so overlapping loads keep it widened until the last ends. */
export function youngGeneration(setFlags: (flag: string) => void = setFlagsFromString): YoungGeneration {
  let holders = 0;
  return {
    widen() {
      if (holders++ === 0) setFlags(WIDENED);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        if (--holders === 0) setFlags(KEPT_SMALL);
      };
    },
  };
}
