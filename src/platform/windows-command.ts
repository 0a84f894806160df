// Running a Windows batch file (a .cmd or .bat, such as npm's `codex.cmd` shim) without handing
// its arguments to a shell unquoted. Windows runs a batch file only through cmd.exe (Node refuses
// to spawn one without a shell since 20.12.2), and cmd.exe reads the line it is given twice here:
// once for `cmd /c`, once more when the batch file substitutes its arguments (`%*`) into the
// line that runs the real program. So each argument is quoted for the program's C runtime, then
// every character cmd.exe treats specially is escaped with ^, twice. With the quotes escaped too,
// cmd.exe never sees an argument as quoted and strips one caret per reading, so the program
// receives exactly the quoted text (nothing is expanded, redirected or chained). Line breaks
// cannot be passed through cmd.exe at all: such an argument is refused.

/** A program and its argv as node:child_process takes them. */
export type Launch = { file: string; args: string[]; windowsVerbatimArguments?: boolean };

/** Characters cmd.exe treats specially on a command line (space and separators included). */
const CMD_SPECIAL = /[\s()[\]{}%!^"`<>&|;,=*?~@]/g;

const escapeForCmd = (s: string): string => s.replace(CMD_SPECIAL, "^$&");

/**
 * `arg` as one argument for a program's C runtime (CommandLineToArgvW's rules): in double
 * quotes, a quote as \", and the backslashes before a quote or the closing quote doubled.
 */
export function quoteWindowsArgument(arg: string): string {
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === "\\") {
      backslashes++;
      continue;
    }
    out += ch === '"' ? `${"\\".repeat(backslashes * 2 + 1)}"` : `${"\\".repeat(backslashes)}${ch}`;
    backslashes = 0;
  }
  return `${out}${"\\".repeat(backslashes * 2)}"`;
}

export function isBatchFile(file: string): boolean {
  return /\.(cmd|bat)$/i.test(file);
}

/**
 * How to run the batch file `file` with `args`: `cmd.exe /d /s /v:off /c "<line>"` (no AutoRun
 * commands, no delayed expansion of !), the line passed verbatim. Throws for an argument with a
 * line break or NUL, which cmd.exe would cut the line at.
 */
export function batchFileLaunch(file: string, args: readonly string[], comspec = "cmd.exe"): Launch {
  const unsafe = [file, ...args].find((a) => /[\r\n\0]/.test(a));
  if (unsafe !== undefined) {
    throw new Error(
      `cannot pass ${JSON.stringify(unsafe)} to ${file}: cmd.exe cuts a line at a line break (point CODEX_PATH at codex.exe instead)`,
    );
  }
  // The file name is read once, by cmd.exe, which finds the batch file by it: escaped, not quoted
  // (a Windows file name cannot hold a quote; an escaped space stays in the name).
  const line = [escapeForCmd(file), ...args.map((a) => escapeForCmd(escapeForCmd(quoteWindowsArgument(a))))].join(" ");
  return { file: comspec, args: ["/d", "/s", "/v:off", "/c", `"${line}"`], windowsVerbatimArguments: true };
}
