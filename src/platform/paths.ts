// Path rules that differ between the hosts Zed runs external agents on (Linux, macOS, Windows).
// Each takes the platform as a parameter (default: this host), so the Windows and macOS branches
// run in unit tests on Linux; on Linux every default is exactly the POSIX behaviour.
import path from "node:path";

export type Platform = NodeJS.Platform;

/** The path module of `platform`: win32's on Windows (drive letters, UNC, "\"), POSIX's elsewhere. */
export function pathsOf(platform: Platform = process.platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

/**
 * Whether `child` is `root` or lies under it, both absolute. On Windows the comparison is
 * path.win32's: case-insensitive (NTFS's default) and across "/" and "\"; a path on another drive
 * is never inside. Elsewhere it is exact: callers pass paths realpath'd with
 * fs.realpathSync.native, which on macOS (and Windows) returns each existing component's case as
 * stored on disk, so a case-insensitive volume needs no folding here, and a case-sensitive one
 * (APFS can be) must not get any.
 */
export function isInsidePath(child: string, root: string, platform: Platform = process.platform): boolean {
  if (child === root) return true;
  const paths = pathsOf(platform);
  const rel = paths.relative(root, child);
  // "" is the same folder written another way (a trailing separator, or another case on Windows).
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${paths.sep}`) && !paths.isAbsolute(rel));
}

/** `p` normalised, without a trailing separator unless it is a root ("/", "C:\", "\\server\share\"). */
export function normalizedDirectory(p: string, platform: Platform = process.platform): string {
  const paths = pathsOf(platform);
  const normal = paths.normalize(p);
  return normal.length > paths.parse(normal).root.length && normal.endsWith(paths.sep) ? normal.slice(0, -1) : normal;
}

/**
 * DOS device names, reserved in every folder on Windows: `C:\ws\nul` or `C:\ws\con.txt` is the
 * device, not a file (a read of CON waits on the console). A trailing extension, dots or spaces
 * do not make them files.
 */
const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\.[^\\/]*)?[. ]*$/i;

/**
 * Whether `p` names a Windows device rather than a file: the device namespace (`\\.\pipe\x`,
 * `\\.\PhysicalDrive0`, `\\?\GLOBALROOT\...`; the long-path forms `\\?\C:\` and `\\?\UNC\` are
 * files) or a reserved device name as its last component.
 */
export function isWindowsDevicePath(p: string): boolean {
  const s = p.replace(/\//g, "\\");
  if (s.startsWith("\\\\.\\")) return true;
  if (s.startsWith("\\\\?\\") && !/^\\\\\?\\([a-z]:\\|unc\\)/i.test(s)) return true;
  return WINDOWS_DEVICE_NAME.test(path.win32.basename(s));
}
