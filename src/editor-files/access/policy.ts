// Write policy: the one place that decides whether a write may proceed.
import fs from "node:fs";
import path from "node:path";
import { isInsidePath, isWindowsDevicePath, type Platform } from "../../platform/index.js";

export type SessionMode = "read-only" | "review-edits" | "auto" | "auto-review" | "full-access";
export type WriteDecision = "allow" | "ask" | "deny";

/**
 * Canonical form of a possibly non-existent absolute path: the nearest existing ancestor is
 * realpath'd (so symlinks and ".." cannot escape) and the missing tail is appended.
 * Synchronous on purpose: a handful of lstat calls, and callers need a plain answer.
 */
export function canonicalPath(p: string): string {
  // Not path.resolve: it folds ".." as text, while the kernel follows a symlink before
  // applying ".." (`/ws/link/../x` can land outside the workspace). Tool paths are
  // already absolute, so realpath sees them exactly as a write would.
  let existing = path.isAbsolute(p) ? p : path.resolve(p);
  const tail: string[] = [];
  for (let hops = 0; ; ) {
    try {
      const real = fs.realpathSync.native(existing);
      return tail.length === 0 ? real : path.join(real, ...[...tail].reverse());
    } catch {
      // A dangling symlink: a write would create its target, so follow it.
      const link = readLinkOrUndefined(existing);
      if (link !== undefined && hops++ < 40) {
        existing = path.resolve(path.dirname(existing), link);
        continue;
      }
      // Not there (or unreadable): climb one level.
      const parent = path.dirname(existing);
      if (parent === existing) return path.join(existing, ...[...tail].reverse());
      tail.push(path.basename(existing));
      existing = parent;
    }
  }
}

function readLinkOrUndefined(p: string): string | undefined {
  try {
    return fs.readlinkSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Whether `child` lies in `root`, by this host's path rules (src/platform/paths.ts): on Windows
 * case-insensitive; on macOS exact, since both sides come from realpathSync.native, which returns
 * the case stored on disk (what makes a case-insensitive volume safe: tests/unit/fs-policy.test.ts).
 */
const isInside = (child: string, root: string): boolean => isInsidePath(child, root);

/** Kernel and device trees: their "files" are views of processes and devices (environments, memory), never text to read or write. */
const SYSTEM_TREES: readonly string[] = ["/proc", "/sys", "/dev"];

/**
 * Whether `p` (canonicalised, so links and ".." count) is a view of the system rather than a file:
 * on POSIX it lies in /proc, /sys or /dev; on Windows it is a device (`\\.\pipe\x`, or a name
 * such as NUL or CON in any folder, which a read would wait on).
 */
export function isSystemPath(p: string, platform: Platform = process.platform): boolean {
  if (platform === "win32") return isWindowsDevicePath(p) || isWindowsDevicePath(canonicalPath(p));
  const target = canonicalPath(p);
  return SYSTEM_TREES.some((tree) => isInsidePath(target, tree, platform));
}

/** Whether `p` (canonicalised) lies inside one of the absolute `roots`. */
export function isInsideRoots(p: string, roots: readonly string[]): boolean {
  return canonicalInsideRoots(canonicalPath(p), roots);
}

/** The same for a path made canonical already: not resolved again (an entry path names a link itself). */
function canonicalInsideRoots(canonical: string, roots: readonly string[]): boolean {
  return roots.some((root) => path.isAbsolute(root) && isInside(canonical, canonicalPath(root)));
}

/**
 * The path of the entry itself, not of what it links to: the parent is canonicalised and the
 * last component kept. What a Delete or the source of a Move acts on (unlink and rename do not
 * follow a final link).
 */
export function canonicalEntryPath(p: string): string {
  const abs = path.isAbsolute(p) ? path.normalize(p) : path.resolve(p);
  const parent = path.dirname(abs);
  return parent === abs ? abs : path.join(canonicalPath(parent), path.basename(abs));
}

/** Hard links of the file at `canonical` (1 when it does not exist or is not a regular file). */
function linkCount(canonical: string): number {
  try {
    const st = fs.lstatSync(canonical, { throwIfNoEntry: false });
    return st?.isFile() ? st.nlink : 1;
  } catch {
    return 1; // ENOTDIR, EACCES...: the write itself reports what is wrong
  }
}

/**
 * Folders Codex's own workspace-write sandbox keeps read-only inside a writable root: git's
 * metadata (hooks run code), Codex's project config (it can turn hooks, the shell-patch guard
 * among them, off) and the agents' skills. The file tools ask before writing there too, at any
 * depth (a nested repository's hooks, a subfolder's config apply as well), so the model cannot
 * reach them through the editor where the shell would be refused.
 */
const PROTECTED_FOLDERS: ReadonlySet<string> = new Set([".git", ".codex", ".agents"]);

export type AskReason =
  | "outside the workspace"
  | "in a protected folder (.git, .codex, .agents)"
  | "hard-linked elsewhere";

/** Whether `canonical`, inside `root`, lies in (or is) one of the protected folders. */
function inProtectedFolder(canonical: string, root: string, platform: Platform = process.platform): boolean {
  const fold =
    platform === "win32" || platform === "darwin" ? (name: string) => name.toLowerCase() : (name: string) => name;
  return path
    .relative(root, canonical)
    .split(/[\\/]/)
    .some((name) => PROTECTED_FOLDERS.has(fold(name)));
}

/**
 * Why a write to `canonical` needs the user's yes in the auto modes, or undefined when it does
 * not: it lies outside every root, in a protected folder of one, or it is a file with another hard
 * link (an editor that saves in place writes through it, and the other name may be anywhere).
 */
export function askReason(canonical: string, roots: readonly string[]): AskReason | undefined {
  const containing = roots
    .filter((root) => path.isAbsolute(root))
    .map(canonicalPath)
    .filter((root) => isInside(canonical, root));
  if (containing.length === 0) return "outside the workspace";
  if (containing.some((root) => inProtectedFolder(canonical, root)))
    return "in a protected folder (.git, .codex, .agents)";
  return linkCount(canonical) > 1 ? "hard-linked elsewhere" : undefined;
}

/**
 * The decision for a path already made canonical (canonicalPath / canonicalEntryPath): the one the
 * write then goes to. read-only -> deny; review-edits -> ask, every write; full-access -> allow;
 * auto (and auto-review) -> allow when it is inside one of the (canonical) roots and has no other
 * hard link, else ask.
 */
export function decideCanonical(opts: {
  mode: SessionMode;
  roots: readonly string[];
  canonical: string;
}): WriteDecision {
  if (opts.mode === "read-only") return "deny";
  if (opts.mode === "review-edits") return "ask";
  if (opts.mode === "full-access") return "allow";
  return askReason(opts.canonical, opts.roots) === undefined ? "allow" : "ask";
}

/** decideCanonical of `path` made canonical. */
export function decideWrite(opts: { mode: SessionMode; roots: readonly string[]; path: string }): WriteDecision {
  return decideCanonical({ mode: opts.mode, roots: opts.roots, canonical: canonicalPath(opts.path) });
}
