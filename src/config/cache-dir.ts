import { lstatSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** What the cache's place depends on: the platform, its environment, this user's uid (POSIX). */
export type CacheHost = { platform: NodeJS.Platform; env: NodeJS.ProcessEnv; uid: number | undefined };

const thisHost = (): CacheHost => ({
  platform: process.platform,
  env: process.env,
  uid: typeof process.getuid === "function" ? process.getuid() : undefined,
});

/**
 * Where the cache folder goes: the temp dir (per user on macOS, shared on Linux: hence the checks
 * below); on Windows %LOCALAPPDATA%, in the user's own profile (the temp dir can be set to a
 * shared folder there, and mode bits cannot tell).
 */
export function cacheRoot(host: CacheHost = thisHost()): string {
  return (host.platform === "win32" && host.env.LOCALAPPDATA) || os.tmpdir();
}

/**
 * This user's cache directory for the adapter (`<root>/codex-cli-acp-cache-<uid>`, created 0700),
 * or undefined when it cannot be used safely: not a directory, owned by someone else, or open to
 * other users (checked, not assumed: anyone can create a name in a shared temp directory first).
 * On Windows (no uid, and mode bits that say nothing of the folder's ACL: Node reports 0o777 for
 * every folder) only "a directory" is checked; its root is the user's profile.
 * Synchronous, so the start-up code can use it before anything else loads.
 */
export function privateCacheDir(root?: string, host: CacheHost = thisHost()): string | undefined {
  try {
    const uid = host.uid;
    const windows = host.platform === "win32";
    const dir = path.join(
      root ?? cacheRoot(host),
      windows ? "codex-cli-acp-cache" : `codex-cli-acp-cache-${uid ?? "user"}`,
    );
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) return undefined;
    if (!windows && ((uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0)) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}
