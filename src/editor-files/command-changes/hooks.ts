// How Codex tells us a shell command is about to run and has ended: a PreToolUse and a
// PostToolUse hook in the thread's own config, each a line of sh that hands the hook's JSON input
// to the session's hook address on our loopback server and prints what it answers. Codex waits
// for a hook, so the command runs only once we have looked at the files it names, and the model
// reads our PostToolUse answer (an unsaved buffer the command went around) with its output.
// bash opens the connection (`/dev/tcp`, no curl or node start per call: ~3 ms); where there is
// no bash the hook says nothing and the command runs as it would (its card then shows no diffs).
// The address's path is the session's hook secret; what it can do is bounded (look at the files a
// command names, say which of them changed), and it carries no file's text back.
import { createHash } from "node:crypto";

/** Where a session's hooks report: our MCP server's port and the session's secret hook path. */
export type HookAddress = { port: number; path: string };

/** Codex names every shell tool (exec_command, shell, shell_command) `Bash` for hooks. */
export const COMMAND_MATCHER = "^Bash$";
/**
 * Another MCP server's tool (`mcp__<server>__<tool>`): it may write files too (the editor's own
 * servers). Not our file tools' server (`acp_fs`: they write through the editor already); Codex's
 * matcher has no lookahead, hence the spelled-out "not acp_fs_".
 */
export const MCP_MATCHER = "^mcp__([^a]|a[^c]|ac[^p]|acp[^_]|acp_[^f]|acp_f[^s]|acp_fs[^_])";
/** What the PostToolUse hook reports: commands and those MCP tools. */
export const AFTER_MATCHER = `^Bash$|${MCP_MATCHER}`;
export const HOOK_TIMEOUT_SEC = 10;

/**
 * The bash script that POSTs its standard input to 127.0.0.1:$1$2 and prints the answer's body
 * when the status is 200. No single quote in it: it is one sh word in single quotes.
 */
const POST_SCRIPT = [
  "exec 3<>/dev/tcp/127.0.0.1/$1 || exit 0",
  "LC_ALL=C",
  "b=$(cat)",
  'printf "POST %s HTTP/1.1\\r\\nHost: 127.0.0.1:%s\\r\\nContent-Type: application/json\\r\\nContent-Length: %s\\r\\nConnection: close\\r\\n\\r\\n%s" "$2" "$1" "${#b}" "$b" >&3',
  "IFS= read -r s <&3",
  'case "$s" in *" 200 "*) ;; *) exit 0;; esac',
  "while IFS= read -r l <&3; do [ ${#l} -le 1 ] && break; done",
  "cat <&3",
].join("; ");

/** The sh that hands the hook's input (in `$i`) to `address` and prints the answer (nothing when it cannot). */
export function reportCommand(address: HookAddress): string {
  if (!/^\/[\w/-]+$/.test(address.path) || !Number.isInteger(address.port))
    throw new Error("a hook address is a port and a plain path");
  // `|| true`: without bash (or our server) the hook still ends well, so Codex reports no failed hook per command.
  // BASH_ENV emptied: a non-interactive bash would source the file it names first (the user's, slow or noisy).
  return `printf '%s' "$i" | BASH_ENV= bash -c '${POST_SCRIPT}' hook ${address.port} ${address.path} 2>/dev/null || true`;
}

/** The PostToolUse hook's whole command: read the input, report it. */
export function afterCommand(address: HookAddress): string {
  return `i=$(cat); ${reportCommand(address)}`;
}

/** JSON with object keys sorted at every level, as Codex serialises a hook's identity. */
function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

/**
 * Codex runs a hook only when `hooks.state.<key>.trusted_hash` is the sha256 of its identity (the
 * event, the matcher, the handlers with their normalised fields). We trust only our own hooks.
 */
export function hookTrustHash(event: "pre_tool_use" | "post_tool_use", matcher: string, command: string): string {
  const identity = {
    event_name: event,
    hooks: [{ async: false, command, timeout: HOOK_TIMEOUT_SEC, type: "command" }],
    matcher,
  };
  return `sha256:${createHash("sha256").update(sortedJson(identity)).digest("hex")}`;
}
