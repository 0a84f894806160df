// How far V8's young generation (where new objects are made) may grow. V8 doubles it under a burst
// of allocation, up to 2 x 16 MiB, and keeps it while allocation goes on: a long-lived editor
// process streaming answers then sits 20-40 MiB higher for good. The bin keeps it at its first
// size, 1 MiB a semi-space (measured, npm run bench and the fuzz test: RSS while streaming 105 ->
// 85 MB, after hostile input +50-60 -> +13-50 MiB, throughput unchanged). A heap-sizing flag
// (--max-semi-space-size) cannot be set after start; the growth factor is read as V8 grows it.
// A stored session's history is another matter: hundreds of MB of Codex's pages pass through in
// seconds, each page alive while it is written, and at 1 MiB the young generation was collected
// 1,154 times in one 300 MB session/load (1.1 s of the agent's 3.1 s of CPU), promoting pages to
// the old generation as it went. While a load holds it, it may grow once, to 4 MiB a semi-space:
// measured on that load, 207 collections (0.3 s), and a lower peak RSS (98 against 122-134 MB:
// fewer pages promoted). It stays at 4 MiB after (+6 MiB): at 16 MiB the load gained another
// 0.1 s, but V8 gave the 30 MiB back only ~40 s after the load. The stop is looked for between
// turns of the event loop: a page parsed in one go can grow it twice first, which is one reason
// the history replay keeps pages of heavy items small (HISTORY_PAGE_TARGET_CHARS).
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** Read by V8 whenever it would grow the young generation: 1 keeps it as it is. */
const KEPT_SMALL = "--semi-space-growth-factor=1";
/** The young generation's size (two semi-spaces of 4 MiB) a widening grows it to, in one step. */
const WIDEST_BYTES = 2 * 4 * 1024 * 1024;
/** How often a widened young generation is looked at (V8 grows it after a collection, so mostly once between two looks). */
const LOOK_EVERY_MS = 10;

export type YoungGeneration = {
  /** Lets the young generation grow while held; call the returned function to let go (once is enough). */
  widen(): () => void;
  /**
   * Runs `make` with the growth factor the bin set before loading the agent, and puts back the one
   * of a widening in progress: V8 rejects a code cache made under other flags (src/startup/code-cache.ts).
   */
  asLoaded<T>(make: () => T): T;
};

/** For the bin's start: the young generation stays at its first size unless widened. */
export function keepYoungGenerationSmall(setFlags: (flag: string) => void = setFlagsFromString): void {
  setFlags(KEPT_SMALL);
}

export type YoungGenerationOptions = {
  setFlags?: (flag: string) => void;
  /** The young generation's size now, in bytes (both semi-spaces); undefined when this V8 does not say. */
  size?: () => number | undefined;
};

function newSpaceBytes(): number | undefined {
  return getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size;
}

/**
 * One per process: holders are counted, so overlapping loads share one widening, and it ends
 * when the young generation reached its widest or the last holder let go, whichever is first.
 */
export function youngGeneration({
  setFlags = setFlagsFromString,
  size = newSpaceBytes,
}: YoungGenerationOptions = {}): YoungGeneration {
  let holders = 0;
  let watch: NodeJS.Timeout | undefined;
  /** The factor a widening in progress set (undefined: kept small). */
  let widenedTo: string | undefined;
  const stop = (): void => {
    if (watch === undefined) return;
    clearInterval(watch);
    watch = undefined;
    widenedTo = undefined;
    setFlags(KEPT_SMALL);
  };
  return {
    widen() {
      const now = size();
      // A V8 that names no young generation (another Node's) is left as it is: no factor from nothing.
      if (holders++ === 0 && now !== undefined && now > 0 && now < WIDEST_BYTES) {
        // V8 multiplies the size by the factor when it grows it: from 1 MiB a semi-space, 4.
        widenedTo = `--semi-space-growth-factor=${Math.max(2, Math.round(WIDEST_BYTES / now))}`;
        setFlags(widenedTo);
        watch = setInterval(() => {
          if ((size() ?? WIDEST_BYTES) >= WIDEST_BYTES) stop();
        }, LOOK_EVERY_MS);
        watch.unref();
      }
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        if (--holders === 0) stop();
      };
    },
    asLoaded<T>(make: () => T): T {
      const widened = widenedTo;
      if (widened === undefined) return make();
      setFlags(KEPT_SMALL);
      try {
        return make();
      } finally {
        setFlags(widened);
      }
    },
  };
}
