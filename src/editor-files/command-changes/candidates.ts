// The files a shell command names: the words a command line passes (arguments, redirect targets),
// read the way sh splits them, resolved against the command's folder. What the command changes
// among them is shown on its card with the text it had before (snapshot.ts); a file it changes
// without naming it (a script's write) is found by the watch (watch.ts) and named without it.
// A word the shell would expand at run time ($VAR, a glob, a command substitution) names nothing
// we can know beforehand and is skipped: this is a cheap reading, not a shell.
import path from "node:path";

/** At most this many paths per command: a command line of thousands of words costs no more. */
export const MAX_CANDIDATES = 64;
/** A word longer than this is no path worth a look (a heredoc's text, an inline script). */
const MAX_WORD = 1024;

type Word = { text: string; expands: boolean };

/**
 * The command's words, split as sh splits them (quotes, backslashes), with the operators
 * (`;`, `&`, `|`, `(`, `)`, newlines, redirects) as words of their own.
 */
export function shellWords(command: string): Word[] {
  const words: Word[] = [];
  let cur = "";
  let has = false;
  let expands = false;
  const end = (): void => {
    if (has) words.push({ text: cur, expands });
    cur = "";
    has = false;
    expands = false;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const close = command.indexOf("'", i + 1);
      const stop = close < 0 ? command.length : close;
      cur += command.slice(i + 1, stop);
      has = true;
      i = stop;
    } else if (c === '"') {
      has = true;
      for (i++; i < command.length && command[i] !== '"'; i++) {
        const d = command[i]!;
        if (d === "\\" && i + 1 < command.length && '"\\$`\n'.includes(command[i + 1]!)) cur += command[++i];
        else {
          if (d === "$" || d === "`") expands = true;
          cur += d;
        }
      }
    } else if (c === "\\") {
      if (i + 1 < command.length && command[i + 1] !== "\n") cur += command[i + 1];
      has = true;
      i++;
    } else if (c === " " || c === "\t") {
      end();
    } else if (";&|()\n<>".includes(c)) {
      end();
      // `>>`, `&&`, `||`, `<<`, `>|`, `&>` as one operator.
      const two = command.slice(i, i + 2);
      const op = [">>", "&&", "||", "<<", ">|", "&>", "<>", ">&"].includes(two) ? two : c;
      words.push({ text: op, expands: false });
      i += op.length - 1;
    } else {
      if (c === "$" || c === "`" || c === "*" || c === "?" || c === "[" || c === "~" || c === "{") expands = true;
      cur += c;
      has = true;
    }
  }
  end();
  return words;
}

const OPERATORS: ReadonlySet<string> = new Set([";", "&", "|", "(", ")", "\n", "&&", "||"]);
const REDIRECTS: ReadonlySet<string> = new Set([">", ">>", ">|", "&>", "<>"]);
/** Operators whose next word is no file the command writes: input, a heredoc's delimiter, a descriptor (`2>&1`). */
const NOT_FILES: ReadonlySet<string> = new Set(["<", "<<", ">&"]);

/**
 * The absolute paths a command line names, inside `roots` (the session's writable roots), in the
 * order named, each once, at most MAX_CANDIDATES. `cwd` is the folder the command runs in.
 */
export function commandPaths(command: string, cwd: string, roots: readonly string[]): string[] {
  const out = new Set<string>();
  const words = shellWords(command);
  // At the start of a simple command, whose first word (after assignments) is the program: not a file it is given.
  let commandWord = true;
  for (let i = 0; i < words.length && out.size < MAX_CANDIDATES; i++) {
    const w = words[i]!;
    if (OPERATORS.has(w.text)) commandWord = true;
    if (OPERATORS.has(w.text) || REDIRECTS.has(w.text) || NOT_FILES.has(w.text)) continue;
    // A heredoc's delimiter, and `2>&1`'s target, are not files.
    const prev = words[i - 1]?.text;
    if (prev === "<<" || prev === ">&") continue;
    const target = prev !== undefined && REDIRECTS.has(prev);
    if (commandWord && !target && !/^[A-Za-z_]\w*=/.test(w.text)) {
      commandWord = false;
      continue;
    }
    const next = words[i + 1]?.text ?? "";
    const text = /^\d$/.test(w.text) && (REDIRECTS.has(next) || NOT_FILES.has(next)) ? "" : w.text;
    if (!text || w.expands || text.length > MAX_WORD || text.includes("\0")) continue;
    // Options name no file, except what follows `=` in `--output=file`.
    const value = text.startsWith("-") ? /^--?[\w-]+=(.+)$/.exec(text)?.[1] : /^[A-Za-z_]\w*=/.test(text) ? undefined : text;
    if (!value || value.includes("\n")) continue;
    const full = path.resolve(cwd, value);
    if (roots.some((root) => full === root || full.startsWith(root.endsWith(path.sep) ? root : root + path.sep))) out.add(full);
  }
  return [...out];
}
