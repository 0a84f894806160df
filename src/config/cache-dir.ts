import { lstatSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * This user's cache directory for the adapter (`<tmp>/codex-cli-acp-cache-<uid>`, created 0700),
 * or undefined when it cannot be used safely: not a directory, owned by someone else, or open to
 * other users (checked, not assumed: anyone can create a name in a shared temp directory first).
 * Synchronous, so the start-up code can use it before anything else loads.
 */
export function privateCacheDir(root: string = os.tmpdir()): string | undefined {
  try {
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
    const dir = path.join(root, `codex-cli-acp-cache-${uid ?? "user"}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}
