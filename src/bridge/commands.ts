// Commands as tool calls: what the model wrote (not the shell wrapper), and a kind from Codex's
// parse of the command (read / search when every action reads or searches and the text shows no
// sign of a change, else execute).
import path from "node:path";
import { mayChange } from "../shell/index.js";
import type { v2 } from "../codex/index.js";
import type { ItemOf, SessionUpdate, ToolCallView } from "./view.js";
import { textTail } from "../text/index.js";

/** Command output kept per update: the tail, so huge outputs cost O(cap) per update, not O(n). */
export const OUTPUT_TAIL_CHARS = 32 * 1024;

/** `/bin/bash -lc 'cmd'` -> `cmd`: the command as the model wrote it (also PowerShell's and cmd.exe's wrappers on Windows). */
export function displayCommand(command: string): string {
  const m = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z)?sh -l?c '((?:[^']|'\\'')*)'$/s.exec(command);
  if (m) return m[1]!.replace(/'\\''/g, "'");
  const d = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z)?sh -l?c "((?:[^"\\]|\\.)*)"$/s.exec(command);
  if (d) return d[1]!.replace(/\\(.)/g, "$1");
  return windowsShellScript(command) ?? command;
}

/**
 * The script of Codex's Windows wrappers, `<pwsh|powershell>[.exe] [-NoLogo|-NoProfile|-NonInteractive]
 * -Command <script>` and `cmd[.exe] /c <script>` (the shell by any path, quoted or not), or undefined.
 */
function windowsShellScript(command: string): string | undefined {
  const m = /^('[^']*'|"[^"]*"|\S+) (.*)$/s.exec(command);
  if (!m) return undefined;
  const shell = m[1]!
    .replace(/^(['"])(.*)\1$/s, "$2")
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/\.exe$/, "");
  const script =
    shell === "pwsh" || shell === "powershell"
      ? /^(?:-(?:NoLogo|NoProfile|NonInteractive) )*-Command (.*)$/is.exec(m[2]!)?.[1]
      : shell === "cmd"
        ? /^\/c (.*)$/is.exec(m[2]!)?.[1]
        : undefined;
  return script === undefined ? undefined : unquoted(script);
}

/** One quoted word as it reads ('…' with '\'' inside, "…" with \ escapes), or `s` when it is not one. */
function unquoted(s: string): string | undefined {
  const single = /^'((?:[^']|'\\'')*)'$/s.exec(s);
  if (single) return single[1]!.replace(/'\\''/g, "'");
  const double = /^"((?:[^"\\]|\\.)*)"$/s.exec(s);
  if (double) return double[1]!.replace(/\\(.)/g, "$1");
  return /['"]/.test(s) ? undefined : s;
}

function resolveIn(cwd: string | undefined, p: string): string {
  return cwd && !path.isAbsolute(p) ? path.resolve(cwd, p) : p;
}

/**
 * A command's view: `read`/`search` with Codex's summary when every parsed action reads or
 * searches and nothing in the command may change anything (Codex calls `find . -delete` a search:
 * src/shell/effects.ts); else `execute`, titled with the command line.
 */
export function describeCommand(
  command: string,
  cwd: string | undefined,
  actions: readonly v2.CommandAction[] | undefined,
): ToolCallView {
  const shown = displayCommand(command);
  const rawInput = { command: shown, cwd: cwd ?? null };
  const parsed = actions ?? [];
  // Only a command Codex reports as reads and searches is read for signs of a change.
  const acts = parsed.length > 0 && parsed.every((a) => a.type !== "unknown") && !mayChange(shown) ? parsed : [];
  const reads = acts.filter((a): a is Extract<v2.CommandAction, { type: "read" }> => a.type === "read");
  if (acts.length > 0 && reads.length === acts.length) {
    return {
      title: `Read ${reads.map((r) => r.name).join(", ")}`,
      kind: "read",
      locations: reads.map((r) => ({ path: resolveIn(cwd, r.path) })),
      rawInput,
    };
  }
  const looks = acts.filter(
    (a): a is Extract<v2.CommandAction, { type: "search" | "listFiles" }> =>
      a.type === "search" || a.type === "listFiles",
  );
  const first = looks[0];
  if (first && looks.length === acts.length) {
    const where = first.path ?? undefined;
    const title =
      first.type === "search"
        ? `Search ${first.query ? `"${first.query}"` : "files"}${where ? ` in ${where}` : ""}`
        : `List ${where ?? "files"}`;
    return {
      title: acts.length === 1 ? title : shown,
      kind: "search",
      locations: where ? [{ path: resolveIn(cwd, where) }] : [],
      rawInput,
    };
  }
  return { title: shown, kind: "execute", rawInput };
}

/**
 * A command Codex asks about is never shown as a read or a search (its card was announced before
 * the request, from the command's text): the update that makes the card `execute`, titled with its
 * command line; undefined when it already is.
 */
export function askingCommandUpdate(
  item: ItemOf<"commandExecution">,
): Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }> | undefined {
  const view = describeCommand(item.command, item.cwd, item.commandActions);
  if (view.kind !== "read" && view.kind !== "search") return undefined;
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: item.id,
    kind: "execute",
    title: displayCommand(item.command),
  };
}

/** The last `cap` characters of a command's output, marked when cut. */
export function outputTail(output: string, cap = OUTPUT_TAIL_CHARS): string {
  if (output.length <= cap) return output;
  const tail = textTail(output, cap);
  return cutOutput(output.length - tail.length, tail);
}

/**
 * `tail` after a mark saying `cut` characters came before it. The mark is ASCII: V8 keeps a string
 * of Latin-1 characters at one byte each, and one character past that (a "…") makes the whole
 * update, and each batch of stdout it is joined into, two bytes per character and slower to
 * stringify and encode (a 300 MB session/load: 0.4-0.8 s more CPU).
 */
export function cutOutput(cut: number, tail: string): string {
  return `[... ${cut} earlier characters not shown]\n${tail}`;
}
