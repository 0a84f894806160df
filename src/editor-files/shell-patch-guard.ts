// Codex's own patch machinery must not write behind the editor (issue 25, DESIGN.md decision 9).
// The native apply_patch tool is removed per thread (src/codex/catalog.ts); this closes the other
// route: the model running apply_patch as a shell command (`apply_patch <<'EOF' ...`, `apply_patch
// '<patch>'`, `cd x && apply_patch ...`, `bash -lc "..."`), which Codex intercepts and applies on
// disk itself, or which its PATH helper applies. A PreToolUse hook in the thread's own config runs
// before any of that and refuses, telling the model to send the patch to our editor-backed tool.
// Why a hook and not the alternatives (a remote environment, approvals), and what stays open:
// .specify/specs/006-edits-through-the-editor/plan.md. The hook is a line of sh (no file, no node
// start): Codex reports ~3 ms per shell call. On Windows Codex runs a hook with cmd.exe /C, where
// sh is not: there it is one PowerShell command (its script base64-encoded, so cmd.exe and the
// quoting of Codex's own process spawning leave it alone), which costs PowerShell's start per call.
import {
  AFTER_MATCHER,
  afterCommand,
  COMMAND_MATCHER,
  HOOK_TIMEOUT_SEC,
  MCP_MATCHER,
  hookTrustHash,
  reportCommand,
  type HookAddress,
} from "./command-changes/hooks.js";
import type { JsonValue } from "../codex/index.js";
import { FILE_TOOLS_SERVER, PATCH_TOOL } from "./contract/index.js";

/**
 * Where Codex keeps hooks given in the thread's config: the session-flags layer's made-up path
 * (rooted at / or, on Windows, C:\), first group, first hook.
 */
export function guardHookKey(
  platform: NodeJS.Platform = process.platform,
  event: "pre_tool_use" | "post_tool_use" = "pre_tool_use",
  group = 0,
): string {
  return `${platform === "win32" ? "C:\\<session-flags>\\config.toml" : "/<session-flags>/config.toml"}:${event}:${group}:0`;
}
/** This host's guardHookKey. */
export const GUARD_HOOK_KEY = guardHookKey();
/** Codex names every shell tool (exec_command, shell, shell_command) `Bash` for hooks; the native patch tool is `apply_patch`. */
const MATCHER = "^(Bash|apply_patch)$";

/** What the model reads (Codex adds ". Command: <the command>"): what happened, and what to do instead. */
export const GUARD_REASON =
  `codex-cli-acp: this session edits files through the user's editor, so apply_patch cannot run as a shell command here ` +
  `(it would change the files on disk behind the editor). Nothing was changed. Send the same patch with the ` +
  `mcp__${FILE_TOOLS_SERVER}__${PATCH_TOOL} tool instead (its \`input\` is the whole patch, from *** Begin Patch to *** End Patch)`;

/**
 * What puts a word in command position, as the JSON input spells it: the command's start, a
 * separator (`&&`, `;`, `|`, `&`, a newline, `(`, a backquote), a word that runs the next one
 * (`exec`, `env`, `command`, `xargs` with its usual flags, `sh -c`/`bash -c`/`-lc`), or an
 * assignment that names it for later (`P=apply_patch; $P`, an alias).
 */
const COMMAND_POSITION = [
  `"command":"`,
  "&& ",
  "&&",
  "; ",
  ";",
  "| ",
  "|",
  "& ",
  "&",
  "\\n",
  "(",
  "`",
  "exec ",
  "env ",
  "command ",
  "xargs ",
  "xargs -0 ",
  "xargs -r ",
  "xargs -0r ",
  "xargs -n1 ",
  "sh -c ",
  "sh -lc ",
  "=",
];
/** How the name may be written there: bare, or quoted or escaped (`'apply_patch'`, `"apply_patch"`, `\apply_patch`). */
const NAME_QUOTES = ["", "'", '\\"', "\\\\"];

/**
 * What gives a command away as a patch, found anywhere in the hook's JSON input: patch text, the
 * native tool, or apply_patch / applypatch run as a command (in command position, however quoted:
 * `bash -c 'apply_patch "$0"' "$(… | base64 -d)"` hides the patch but not the name; on Windows,
 * where the whole guard must fit cmd.exe's 8191 characters, bare names only). Not a bare mention,
 * quoted or not (`grep -rn 'apply_patch' src` runs).
 */
function patchMarkers(quotes = NAME_QUOTES): string[] {
  const markers = ["*** Begin Patch", `"tool_name":"apply_patch"`];
  for (const name of ["apply_patch", "applypatch"])
    for (const before of COMMAND_POSITION) for (const quote of quotes) markers.push(`${before}${quote}${name}`);
  return markers;
}

/** What the hook prints to refuse the call. */
const denyAnswer = (): string =>
  JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: GUARD_REASON,
    },
  });

/** A string as one sh word in single quotes. */
const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** A string as a PowerShell single-quoted literal. */
const psQuote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * The hook's command: reads its JSON input and prints Codex's "deny" answer when the call is a
 * patch. POSIX: a line of sh, which otherwise reports the command to `report` (the command's card
 * shows what it changes: command-changes/). Windows: PowerShell given its script as
 * -EncodedCommand (UTF-16LE, base64: no quotes or characters cmd.exe would act on), guard only.
 */
export function guardCommand(platform: NodeJS.Platform = process.platform, report?: HookAddress): string {
  if (platform === "win32") {
    const script = `$i=[Console]::In.ReadToEnd();foreach($p in @(${patchMarkers([""]).map(psQuote).join(",")})){if($i.Contains($p)){[Console]::Out.Write(${psQuote(denyAnswer())});break}}`;
    return `powershell.exe -NoLogo -NoProfile -NonInteractive -EncodedCommand ${Buffer.from(script, "utf16le").toString("base64")}`;
  }
  const otherwise = report ? ` *) ${reportCommand(report)};;` : "";
  return `i=$(cat); case "$i" in ${patchMarkers()
    .map((m) => `*${shQuote(m)}*`)
    .join("|")}) printf '%s' ${shQuote(denyAnswer())};;${otherwise} esac`;
}

/**
 * Codex runs a hook only when its definition is trusted (command-changes/hooks.ts). We trust only
 * our own hooks, never one the user wrote. tests/e2e/shell-patch.test.ts checks the hash against
 * what the pinned codex computes (`hooks/list`), so a Codex upgrade that changes the formula fails
 * there, not silently.
 */
export function guardTrustHash(command = guardCommand()): string {
  return hookTrustHash("pre_tool_use", MATCHER, command);
}

type JsonObject = { [key: string]: JsonValue };

/**
 * `config` with our hooks installed in its `hooks` (thread/start's and thread/resume's per-thread
 * config): the guard (unless `guard` is false), and on POSIX with `report` the hooks that tell us
 * when a command runs and ends. Ours go first, so that their keys are the ones trusted; hooks
 * already there are kept.
 */
export function withShellPatchGuard(
  config: JsonObject | undefined,
  platform: NodeJS.Platform = process.platform,
  opts: { userTurnsHooksOff?: boolean; report?: HookAddress; guard?: boolean; reportAfter?: boolean } = {},
): JsonObject {
  const report = platform === "win32" ? undefined : opts.report;
  // The PostToolUse hook only tells the model of an unsaved buffer a command went around (~10 ms a
  // command): without the editor's reads there is none to tell, and the card needs no hook to end.
  const after = report && opts.reportAfter !== false ? report : undefined;
  const guard = opts.guard !== false;
  if (!guard && !report) return { ...config };
  const before = guard ? guardCommand(platform, report) : `i=$(cat); ${reportCommand(report!)}`;
  const beforeMatcher = guard ? MATCHER : COMMAND_MATCHER;
  const hooks = asObject(config?.hooks);
  const pre = Array.isArray(hooks.PreToolUse) ? hooks.PreToolUse : [];
  const post = Array.isArray(hooks.PostToolUse) ? hooks.PostToolUse : [];
  const handler = (command: string): JsonObject => ({ type: "command", command, timeout: HOOK_TIMEOUT_SEC });
  return {
    ...config,
    // A project's `.codex/config.toml` with `[features] hooks = false` would turn the guard off
    // with every hook (codex 0.169 takes it even from an untrusted project): the thread's own
    // config, above it, turns hooks on. The user's own `hooks = false` is theirs to keep.
    // As one dotted key, not a `features` table: a table here replaces the features the agent's
    // codex was started with (`--enable request_permissions_tool` in CODEX_ACP_CODEX_ARGS was lost).
    ...(opts.userTurnsHooksOff
      ? {}
      : isObject(config?.features)
        ? { features: { ...asObject(config?.features), hooks: true } }
        : { "features.hooks": true }),
    hooks: {
      ...hooks,
      PreToolUse: [
        { matcher: beforeMatcher, hooks: [handler(before)] },
        ...(report ? [{ matcher: MCP_MATCHER, hooks: [handler(afterCommand(report))] }] : []),
        ...pre,
      ],
      ...(after ? { PostToolUse: [{ matcher: AFTER_MATCHER, hooks: [handler(afterCommand(after))] }, ...post] } : {}),
      state: {
        ...asObject(hooks.state),
        [guardHookKey(platform)]: { trusted_hash: hookTrustHash("pre_tool_use", beforeMatcher, before) },
        ...(report
          ? {
              [guardHookKey(platform, "pre_tool_use", 1)]: {
                trusted_hash: hookTrustHash("pre_tool_use", MCP_MATCHER, afterCommand(report)),
              },
              ...(after
                ? {
                    [guardHookKey(platform, "post_tool_use")]: {
                      trusted_hash: hookTrustHash("post_tool_use", AFTER_MATCHER, afterCommand(after)),
                    },
                  }
                : {}),
            }
          : {}),
      },
    },
  };
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asObject(v: JsonValue | undefined): JsonObject {
  if (!v || typeof v !== "object" || Array.isArray(v)) return {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(v)) if (value !== undefined) out[key] = value;
  return out;
}
