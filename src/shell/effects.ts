// Whether a shell command may change something, from its text alone. Codex's parser summarises a
// command as reads and searches by its main programs: it drops the "formatting helpers" of a
// pipeline (tee, sort, xargs, awk, sed...), ignores find's actions (`-delete`, `-exec`) and cannot
// see redirects it does not parse. A card that says "Search" for `find . -delete` hides the change
// (clients approve reads and searches on their own), so a command is shown as a read or a search
// only when this finds no sign of a change. Conservative: a program it does not know, a command
// or process substitution, a redirect to a file, or a quote left open all count as a change.

import { shellTokens } from "./words.js";

/** True unless every program of `script` is a known reader used in a read-only way. */
export function mayChange(script: string): boolean {
  const { tokens, unsure } = shellTokens(script);
  if (unsure) return true;
  let words: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if ("word" in t) words.push(t.word);
    else if ("redirect" in t) {
      const next = tokens[i + 1];
      const target = next && "word" in next ? next.word : undefined;
      if (target === undefined || redirectWrites(t.redirect, target)) return true;
      i++;
    } else {
      if (commandChanges(words)) return true;
      words = [];
    }
  }
  return commandChanges(words);
}

/** A redirect that writes a file (not /dev/null, not a copy of another descriptor). */
function redirectWrites(op: string, target: string): boolean {
  if (op === "<" || op === "<<" || op === "<<-" || op === "<<<" || op === "<&") return false;
  if (op === ">&" && /^(\d+|-)$/.test(target)) return false;
  return target !== "/dev/null";
}

type Check = (args: string[]) => boolean;
const never: Check = () => false;
const has =
  (...flags: string[]): Check =>
  (args) =>
    args.some((a) => flags.includes(a) || flags.some((f) => f.startsWith("--") && a.startsWith(`${f}=`)));
/** Non-option operands (`-` is stdin, an operand). */
const operands = (args: string[]) => args.filter((a) => a === "-" || !a.startsWith("-"));

const FIND_ACTIONS = ["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"];

/**
 * The programs Codex reports as reads, searches or listings, and the helpers it drops from a
 * pipeline's summary, each with what makes it change something. Any other program may.
 */
const READERS: Record<string, Check> = {
  cat: never,
  bat: has("--pager"),
  batcat: has("--pager"),
  more: never,
  less: (args) => args.some((a) => a.startsWith("+") || /^-[a-zA-Z]*[oO]/.test(a) || /^--(log-file|LOG-FILE)/.test(a)),
  head: never,
  tail: never,
  nl: never,
  wc: never,
  tr: never,
  cut: never,
  column: never,
  yes: never,
  printf: never,
  echo: never,
  true: never,
  cd: never,
  pwd: never,
  ls: never,
  eza: never,
  exa: never,
  du: never,
  grep: never,
  egrep: never,
  fgrep: never,
  ag: has("--pager"),
  ack: has("--pager"),
  pt: never,
  tree: (args) => args.some((a) => /^-o/.test(a)),
  find: has(...FIND_ACTIONS),
  fd: fdChanges,
  fdfind: fdChanges,
  rg: has("--pre"),
  rga: has("--pre"),
  "ripgrep-all": has("--pre"),
  git: gitChanges,
  tee: (args) => operands(args).some((a) => a !== "/dev/null"),
  sort: (args) => has("--output")(args) || args.some((a) => /^-[a-zA-Z]*o/.test(a)),
  uniq: (args) => operands(args).filter((a) => !/^\d+$/.test(a)).length > 1,
  sed: sedChanges,
  awk: awkChanges,
  gawk: awkChanges,
  mawk: awkChanges,
  nawk: awkChanges,
  xargs: (args) => {
    const sub = xargsCommand(args);
    return sub !== undefined && commandChanges(sub);
  },
};

function commandChanges(words: string[]): boolean {
  const [head, ...args] = words;
  if (head === undefined) return false;
  const check = Object.hasOwn(READERS, head) ? READERS[head] : undefined;
  return check === undefined || check(args);
}

/** Runs a command on each result (`-x`, `-X`, `--exec`, `--exec-batch`). */
function fdChanges(args: string[]): boolean {
  return has("--exec", "--exec-batch")(args) || args.some((a) => /^-[a-zA-Z]*[xX]/.test(a));
}

/** `git grep` (not opening a pager program) and `git ls-files` only read; other subcommands and global options may not. */
function gitChanges(args: string[]): boolean {
  let i = 0;
  while (args[i] === "-C" || args[i] === "--no-pager") i += args[i] === "-C" ? 2 : 1;
  const sub = args[i];
  if (sub === "ls-files") return false;
  if (sub !== "grep") return true;
  return args.slice(i + 1).some((a) => /^-[a-zA-Z]*O/.test(a) || a.startsWith("--open-files-in-pager"));
}

/** In place (`-i`, `-i.bak`, `-ni`, `--in-place`), a script file, or a script that writes (`w`) or runs (`e`). */
function sedChanges(args: string[]): boolean {
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith("--in-place") || /^-[a-zA-Z]*i/.test(a) || a === "-f" || a.startsWith("--file")) return true;
    if (a === "-e" || a === "--expression") scripts.push(args[++i] ?? "");
    else if (a.startsWith("--expression=")) scripts.push(a.slice("--expression=".length));
  }
  if (scripts.length === 0) {
    const first = args.find((a) => !a.startsWith("-"));
    if (first !== undefined) scripts.push(first);
  }
  return scripts.some((s) => /(^|[^a-zA-Z\\])[wWe](\s|;|$)/.test(s));
}

/** A program that prints to a file or a pipe, runs a command, or comes from a file or an extension. */
function awkChanges(args: string[]): boolean {
  let program: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^(-[filE]|--(file|include|load|exec)(=|$))/.test(a)) return true;
    if (a === "-e" || a === "--source") {
      program = args[i + 1];
      break;
    }
    if (a === "-F" || a === "-v" || a === "--field-separator" || a === "--assign") i++;
    else if (!a.startsWith("-")) {
      program = a;
      break;
    }
  }
  return program !== undefined && /\bsystem\s*\(|\|\s*(?:"|getline\b|\w)|\bprintf?\b[^;{}]*>/.test(program);
}

/** The command xargs runs (its options skipped), or undefined for its default (echo). */
function xargsCommand(args: string[]): string[] | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return args.length > i + 1 ? args.slice(i + 1) : undefined;
    if (!a.startsWith("-")) return args.slice(i);
    if (/^-[EeILnPsd]$/.test(a)) i++;
  }
  return undefined;
}
