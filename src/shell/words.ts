// A shell command line as sh splits it: words (quotes removed), control operators and redirects.
// One reading for every use (a card's kind: effects.ts; the files a command names:
// editor-files/command-changes). It is a cheap reading, not a shell: what sh would only know at
// run time (a command or process substitution, a variable, a glob) is marked, not expanded.

/** A word, with whether sh would expand it at run time (`$X`, a glob, `~`, a substitution): its text is then not what runs. */
export type Word = { word: string; expands: boolean };
export type Token = Word | { op: string } | { redirect: string };

export type ShellTokens = {
  tokens: Token[];
  /** A quote left open, or a command or process substitution (`$(…)`, backticks, `<(…)`, `>(…)`): the tokens are a guess. */
  unsure: boolean;
};

const REDIRECT = /^(?:&>>|&>|>>|>\||>&|<<<|<<-|<<|<>|<&|>|<)/;
const OPERATOR = /^(?:&&|\|\||\|&|;;|[|&;()])/;
/** Characters that make sh expand an unquoted word. */
const EXPANDS = /[$*?[~{]/;

/** The operator `re` (anchored, and sure to match) finds at `i` (operators are at most 3 characters). */
function match(re: RegExp, s: string, i: number): string {
  return re.exec(s.slice(i, i + 3))![0];
}

export function shellTokens(s: string): ShellTokens {
  const tokens: Token[] = [];
  let unsure = false;
  let word = "";
  let inWord = false;
  let quoted = false;
  let expands = false;
  const end = (): void => {
    if (inWord) tokens.push({ word, expands });
    word = "";
    inWord = quoted = expands = false;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      if (close < 0) unsure = true;
      const stop = close < 0 ? s.length : close;
      word += s.slice(i + 1, stop);
      inWord = quoted = true;
      i = stop;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < s.length && s[j] !== '"'; j++) {
        if (s[j] === "`" || s[j] === "$") expands = true;
        if (s[j] === "`" || (s[j] === "$" && s[j + 1] === "(")) unsure = true;
        // Inside double quotes a backslash escapes only these; elsewhere it stays.
        if (s[j] === "\\" && j + 1 < s.length && '$`"\\\n'.includes(s[j + 1]!)) j++;
        word += s[j];
      }
      if (j >= s.length) unsure = true;
      inWord = quoted = true;
      i = j;
    } else if (c === "\\") {
      // An escaped character is part of the word; an escaped newline joins two lines.
      if (i + 1 < s.length && s[i + 1] !== "\n") {
        word += s[i + 1];
        inWord = quoted = true;
      }
      i++;
    } else if (c === "`" || ((c === "$" || c === "<" || c === ">") && s[i + 1] === "(")) {
      // What it substitutes is read on as words of its own; the word it stands in expands.
      unsure = expands = inWord = true;
      word += c;
    } else if (c === " " || c === "\t") {
      end();
    } else if (c === "#" && !inWord) {
      const nl = s.indexOf("\n", i);
      i = nl < 0 ? s.length : nl - 1;
    } else if (c === "\n") {
      end();
      tokens.push({ op: ";" });
    } else if (c === ">" || c === "<" || (c === "&" && s[i + 1] === ">")) {
      // A descriptor number before it (`2>`) belongs to the redirect, not to the command's words.
      if (inWord && !quoted && /^\d+$/.test(word)) {
        word = "";
        inWord = false;
      }
      end();
      const op = match(REDIRECT, s, i);
      tokens.push({ redirect: op });
      i += op.length - 1;
    } else if (c === "|" || c === "&" || c === ";" || c === "(" || c === ")") {
      end();
      const op = match(OPERATOR, s, i);
      tokens.push({ op: op === ";;" ? ";" : op });
      i += op.length - 1;
    } else {
      if (EXPANDS.test(c)) expands = true;
      word += c;
      inWord = true;
    }
  }
  end();
  return { tokens, unsure };
}
