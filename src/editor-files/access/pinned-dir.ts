// A folder held open while a write or a delete works in it, so that a folder swapped for a link
// after the policy judged its path cannot move the write elsewhere (a model's background command
// can swap folders inside the workspace as fast as it likes). Node has no openat, renameat or
// unlinkat; on Linux every name is reached through /proc/self/fd/<fd>/, which the kernel resolves
// to the folder that was opened, never by its path again. The folder's identity is checked once,
// right after it is opened. Elsewhere (or without /proc) the paths are used as they are, resolved
// once more right before the call, and a window of microseconds stays
// (.specify/specs/006-edits-through-the-editor/plan.md).
import { constants } from "node:fs";
// The default export (the fs.promises object), as local.ts uses it: unit tests can spy on it.
import fsp from "node:fs/promises";
import path from "node:path";

export type PinnedDir = {
  /** The path that reaches `name` inside the folder opened (a name, not a path). */
  at(name: string): string;
  /**
   * Right before the call that must land in the folder: nothing where it is held open; otherwise
   * its path is resolved once more and must still be the folder judged (a window of microseconds
   * remains after it).
   */
  recheck(): Promise<void>;
  /** fsync of the folder itself (makes a rename durable); best effort. */
  sync(): Promise<void>;
  close(): Promise<void>;
};

/**
 * Opens `dir` (a canonical path the policy judged) and holds it. Throws `changed()` when what
 * opened is not that folder any more (a link put in its place, or a part of its path); the
 * folder's own open errors (ENOENT, EACCES...) are thrown as they are.
 */
export async function pinDir(
  dir: string,
  changed: () => Error,
  platform: NodeJS.Platform = process.platform,
): Promise<PinnedDir> {
  if (platform !== "linux") return unpinned(dir, changed);
  // O_PATH: a folder the user may write in but not list (mode 0300) is held as well; such a
  // handle cannot be fsynced, so the folder's sync reopens it through the handle (best effort).
  const handle = await fsp.open(dir, O_PATH | constants.O_DIRECTORY);
  const via = `/proc/self/fd/${handle.fd}`;
  let opened: string;
  try {
    opened = await fsp.readlink(via);
  } catch {
    // No /proc (a container without it): the paths as they are.
    await handle.close();
    return unpinned(dir, changed);
  }
  if (opened !== dir) {
    await handle.close();
    throw changed();
  }
  return {
    at: (name) => `${via}/${name}`,
    recheck: async () => undefined,
    sync: () => syncFolder(via),
    close: () => handle.close(),
  };
}

/** Linux's O_PATH (not in Node's fs.constants): a handle that names the folder without reading it. */
const O_PATH = 0o10000000;

function unpinned(dir: string, changed: () => Error): PinnedDir {
  return {
    at: (name) => path.join(dir, name),
    recheck: async () => {
      if ((await fsp.realpath(dir)) !== dir) throw changed();
    },
    sync: () => syncFolder(dir),
    close: async () => undefined,
  };
}

/** fsync of a folder (makes a rename in it durable); best effort: some filesystems refuse it, and a folder we may not read cannot be opened for it. */
async function syncFolder(dir: string): Promise<void> {
  try {
    const d = await fsp.open(dir, constants.O_RDONLY);
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // best effort
  }
}

/**
 * `mkdir -p dir` (a canonical path the policy judged) where each folder is made inside its parent
 * held open, and each one made is checked to be where the path says before the next is made in it:
 * a folder swapped for a link meanwhile cannot make folders elsewhere. Returns the first folder made
 * (undefined when `dir` was there), as mkdir's recursive form does. Throws `changed()` when a part
 * of the path is not what it was judged to be; the folders' own errors (EACCES, ENOTDIR...) as they are.
 */
export async function makeFolders(
  dir: string,
  changed: () => Error,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  // Where to start: the deepest part that is a folder now. Only a start; each folder held is checked.
  const missing: string[] = [];
  let existing = dir;
  while (!(await isFolder(existing)) && path.dirname(existing) !== existing) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  let first: string | undefined;
  let parent = await pinDir(existing, changed, platform);
  try {
    for (const name of missing) {
      await parent.recheck();
      const made = await fsp.mkdir(parent.at(name)).then(
        () => true,
        (err: unknown) => {
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
          return false;
        },
      );
      existing = path.join(existing, name);
      if (made) first ??= existing;
      const child = await pinDir(existing, changed, platform).catch((err: unknown) => {
        // Made a moment ago and gone from its path: the path moved, not the folder.
        throw (err as NodeJS.ErrnoException).code === "ENOENT" ? changed() : err;
      });
      await parent.close().catch(() => undefined);
      parent = child;
    }
    await parent.recheck();
  } finally {
    await parent.close().catch(() => undefined);
  }
  return first;
}

async function isFolder(p: string): Promise<boolean> {
  return fsp.stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Runs `act` with `dir` held open (pinDir), and lets go of it after. */
export async function inPinnedDir<T>(
  dir: string,
  changed: () => Error,
  act: (pinned: PinnedDir) => Promise<T>,
): Promise<T> {
  const pinned = await pinDir(dir, changed);
  try {
    return await act(pinned);
  } finally {
    await pinned.close().catch(() => undefined);
  }
}
