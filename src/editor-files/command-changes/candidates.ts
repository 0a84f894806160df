// The files a shell command names: the words a command line passes (arguments, redirect targets),
// read the way sh splits them, resolved against the command's folder. What the command changes
// among them is shown on its card with the text it had before (snapshot.ts); a file it changes
// without naming it (a script's write) is found by the watch (watch.ts) and named without it.
// A word the shell would expand at run time ($VAR, a glob, a command substitution) names nothing
// we can know beforehand and is skipped: this is a cheap reading, not a shell.
import path from "node:path";
import { shellTokens } from "../../shell/index.js";

/** At most this many paths per command: a command line of thousands of words costs no more. */
export const MAX_CANDIDATES = 64;
/** A word longer than this is no path worth a look (a heredoc's text, an inline script). */
const MAX_WORD = 1024;

/** Redirects whose next word is no file the command writes: input, a heredoc's delimiter, a descriptor it copies (`2>&1`). */
const NOT_WRITTEN: ReadonlySet<string> = new Set(["<", "<<", "<<-", "<<<", "<&"]);

/**
 * The absolute paths a command line names, inside `roots` (the session's writable roots), in the
 * order named, each once, at most MAX_CANDIDATES. `cwd` is the folder the command runs in.
 */
export function commandPaths(command: string, cwd: string, roots: readonly string[]): string[] {
  const out = new Set<string>();
  const { tokens } = shellTokens(command);
  // At the start of a simple command, whose first word (after assignments) is the program: not a file it is given.
  let commandWord = true;
  for (let i = 0; i < tokens.length && out.size < MAX_CANDIDATES; i++) {
    const t = tokens[i]!;
    if ("op" in t) commandWord = true;
    if (!("word" in t)) continue;
    const prev = tokens[i - 1];
    const redirect = prev && "redirect" in prev ? prev.redirect : undefined;
    if (redirect !== undefined && (NOT_WRITTEN.has(redirect) || (redirect === ">&" && /^(\d+|-)$/.test(t.word))))
      continue;
    if (commandWord && redirect === undefined && !/^[A-Za-z_]\w*=/.test(t.word)) {
      commandWord = false;
      continue;
    }
    const text = t.word;
    if (!text || t.expands || text.length > MAX_WORD || text.includes("\0")) continue;
    // Options name no file, except what follows `=` in `--output=file`.
    const value = text.startsWith("-")
      ? /^--?[\w-]+=(.+)$/.exec(text)?.[1]
      : /^[A-Za-z_]\w*=/.test(text)
        ? undefined
        : text;
    if (!value || value.includes("\n")) continue;
    const full = path.resolve(cwd, value);
    if (roots.some((root) => full === root || full.startsWith(root.endsWith(path.sep) ? root : root + path.sep)))
      out.add(full);
  }
  return [...out];
}
