// The guard against apply_patch through the shell (src/editor-files/shell-patch-guard.ts): its one line of sh,
// run by sh as Codex runs it, on the JSON Codex gives a PreToolUse hook; its thread config; and the
// card a blocked call becomes (src/bridge/hooks.ts). The real codex runs it in tests/e2e/shell-patch.test.ts.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  GUARD_HOOK_KEY,
  GUARD_REASON,
  guardCommand,
  guardHookKey,
  guardTrustHash,
  withShellPatchGuard,
} from "../../src/editor-files/shell-patch-guard.js";
import { blockedToolCall } from "../../src/bridge/hooks.js";
import type { v2 } from "../../src/codex/index.js";

/** What the hook prints for a call of `tool` with `command` (Codex's PreToolUse input, abridged). */
function decide(command: string, tool = "Bash"): string {
  const input = JSON.stringify({
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: { command },
    tool_use_id: "c1",
    cwd: "/ws",
  });
  const r = spawnSync("sh", ["-c", guardCommand()], { input, encoding: "utf8" });
  expect(r.status).toBe(0);
  return r.stdout;
}

const PATCH = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch";

describe("the guard's command", () => {
  it.each([
    ["heredoc", `apply_patch <<'EOF'\n${PATCH}\nEOF`],
    ["argument", `apply_patch '${PATCH}'`],
    ["cd first", `cd sub && apply_patch <<'EOF'\n${PATCH}\nEOF`],
    ["nested shell", `bash -lc "apply_patch <<'EOF'\n${PATCH}\nEOF"`],
    ["from a file", "apply_patch < change.patch"],
    ["after a semicolon", "cd sub; applypatch < change.patch"],
    ["piped", "cat change.patch | apply_patch"],
    ["on a later line", "set -e\napply_patch < change.patch"],
    ["in a subshell", "(apply_patch < change.patch)"],
    // Issue 48: the cheap forms a model (or a red team) reaches for.
    ["through bash -c with the patch encoded", `bash -c 'apply_patch "$0"' "$(echo KioqIEJlZ2lu | base64 -d)"`],
    ["through sh -c", "sh -c 'apply_patch < change.patch'"],
    ["after env", "env apply_patch < change.patch"],
    ["after env with a quoted name", "env 'apply_patch' < change.patch"],
    ["named for later", "P=apply_patch; $P < change.patch"],
    ["as an alias", "alias ap=apply_patch; ap < change.patch"],
    ["double-quoted", '"apply_patch" < change.patch'],
    ["single-quoted", "'apply_patch' < change.patch"],
    ["escaped", "\\apply_patch < change.patch"],
    ["after &", "true & apply_patch < change.patch"],
    ["through xargs", "printf '%s\\0' change.patch | xargs -0 apply_patch"],
    ["through command", "command apply_patch < change.patch"],
  ])("refuses %s", (_name, command) => {
    const out = JSON.parse(decide(command)) as { hookSpecificOutput: Record<string, string> };
    expect(out.hookSpecificOutput).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: GUARD_REASON,
    });
  });

  it("refuses the native tool, whatever its input", () => {
    expect(decide(PATCH, "apply_patch")).toContain('"permissionDecision":"deny"');
  });

  it.each([
    ["a search for the name", "grep -rn apply_patch src"],
    ["an echo", "echo the apply_patch tool"],
    ["a test run", "npm test -- apply_patch"],
    ["a plain command", "ls -la"],
    ["quotes in a command", `printf '%s' "it's fine"`],
    ["a quoted search for the name", "grep -rn 'apply_patch' src"],
    ["a double-quoted search", 'rg "apply_patch" docs'],
    ["a count of the name", "grep -c apply_patch notes.txt"],
  ])("lets %s run", (_name, command) => {
    expect(decide(command)).toBe("");
  });

  it("the reason sends the model to the editor-backed tool and ends without a period (Codex appends '. Command: …')", () => {
    expect(GUARD_REASON).toContain("mcp__acp_fs__apply_patch");
    expect(GUARD_REASON.endsWith(".")).toBe(false);
  });
});

/**
 * The Windows guard's script (Codex runs hooks with cmd.exe /C there, where sh is not): decoded
 * from its -EncodedCommand, with PowerShell's reading of its single-quoted strings ('' is ').
 */
function windowsScript(): { command: string; script: string; needles: string[]; output: string } {
  const command = guardCommand("win32");
  const encoded = /^powershell\.exe -NoLogo -NoProfile -NonInteractive -EncodedCommand ([A-Za-z0-9+/=]+)$/.exec(
    command,
  )?.[1];
  expect(encoded, command).toBeDefined();
  const script = Buffer.from(encoded!, "base64").toString("utf16le");
  const literal = (s: string): string => s.slice(1, -1).replace(/''/g, "'");
  const list = /foreach\(\$p in @\(((?:'(?:[^']|'')*',?)+)\)\)/.exec(script)?.[1] ?? "";
  const needles = [...list.matchAll(/'(?:[^']|'')*'/g)].map((m) => literal(m[0]));
  const output = literal(/\[Console\]::Out\.Write\(('(?:[^']|'')*')\)/.exec(script)?.[1] ?? "''");
  return { command, script, needles, output };
}

/** What the Windows script prints for this input: the deny answer when any needle is in it (its foreach and Contains). */
function decideWindows(command: string, tool = "Bash"): string {
  const input = JSON.stringify({
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: { command },
    tool_use_id: "c1",
    cwd: "C:\\ws",
  });
  const { needles, output } = windowsScript();
  return needles.some((n) => input.includes(n)) ? output : "";
}

describe("the guard's command on Windows (PowerShell, run by Codex through cmd.exe /C)", () => {
  it("is one line cmd.exe passes on untouched: no quotes, no cmd.exe special characters, well under its 8191-character limit", () => {
    const { command, script } = windowsScript();
    expect(command).not.toMatch(/["%!^&|<>()]/);
    expect(command.length).toBeLessThan(8191);
    expect(script).toMatch(/^\$i=\[Console\]::In\.ReadToEnd\(\);/);
    // ASCII only: PowerShell also takes typographic quotes as string delimiters.
    expect(/^[\x20-\x7e]*$/.test(script)).toBe(true);
  });

  it("refuses and lets run exactly what the sh guard does, with the same answer", () => {
    const refused = [
      `apply_patch <<'EOF'\n${PATCH}\nEOF`,
      `apply_patch '${PATCH}'`,
      `cd sub && apply_patch <<'EOF'\n${PATCH}\nEOF`,
      "cd sub; applypatch < change.patch",
      "cat change.patch | apply_patch",
      "set -e\napply_patch < change.patch",
      "(apply_patch < change.patch)",
    ];
    for (const command of refused) expect(decideWindows(command)).toBe(decide(command));
    expect(JSON.parse(decideWindows(refused[0]!))).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: GUARD_REASON,
      },
    });
    expect(decideWindows(PATCH, "apply_patch")).toBe(decide(PATCH, "apply_patch"));
    for (const command of [
      "grep -rn apply_patch src",
      "echo the apply_patch tool",
      "npm test -- apply_patch",
      "dir",
      `printf '%s' "it's fine"`,
    ]) {
      expect(decideWindows(command)).toBe("");
    }
  });

  it("is trusted under the key Codex gives the session-flags layer there (rooted at C:\\), by the hash of the command Codex runs there", () => {
    expect(guardHookKey("win32")).toBe("C:\\<session-flags>\\config.toml:pre_tool_use:0:0");
    expect(guardHookKey("linux")).toBe("/<session-flags>/config.toml:pre_tool_use:0:0");
    expect(guardHookKey("darwin")).toBe("/<session-flags>/config.toml:pre_tool_use:0:0");
    const config = withShellPatchGuard({}, "win32");
    const hooks = config.hooks as {
      PreToolUse: Array<{ hooks: Array<{ command: string }> }>;
      state: Record<string, { trusted_hash: string }>;
    };
    expect(hooks.PreToolUse[0]?.hooks[0]?.command).toBe(guardCommand("win32"));
    expect(hooks.state).toEqual({ [guardHookKey("win32")]: { trusted_hash: guardTrustHash(guardCommand("win32")) } });
    // This host (Linux) keeps its own: the same config as before, the key the e2e test checks against codex.
    expect(withShellPatchGuard({})).toEqual(withShellPatchGuard({}, "linux"));
    expect(guardCommand()).toBe(guardCommand("darwin"));
  });
});

describe("the guard's thread config", () => {
  it("goes first among the hooks already there, keeps them and their trust, and trusts itself by its hash", () => {
    const theirs = { matcher: "^Bash$", hooks: [{ type: "command", command: "their-hook" }] };
    const config = withShellPatchGuard({
      model: "m",
      hooks: { PreToolUse: [theirs], state: { "their-key": { trusted_hash: "sha256:x" } } },
    });
    const hooks = config.hooks as { PreToolUse: unknown[]; state: Record<string, unknown> };
    expect(config.model).toBe("m");
    expect(hooks.PreToolUse).toHaveLength(2);
    expect(hooks.PreToolUse[0]).toMatchObject({
      matcher: "^(Bash|apply_patch)$",
      hooks: [{ type: "command", command: guardCommand() }],
    });
    expect(hooks.PreToolUse[1]).toEqual(theirs);
    expect(hooks.state).toEqual({
      "their-key": { trusted_hash: "sha256:x" },
      [GUARD_HOOK_KEY]: { trusted_hash: guardTrustHash() },
    });
    expect(guardTrustHash()).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(guardTrustHash("another command")).not.toBe(guardTrustHash());
  });

  it("turns Codex's hooks on above a project's config that turns them off, keeping the other features; not when the user's own config turns them off", () => {
    expect(withShellPatchGuard({ features: { plugins: false } }).features).toEqual({ plugins: false, hooks: true });
    // Alone, as a dotted key: a `features` table would replace the features codex was started with (--enable).
    expect(withShellPatchGuard(undefined)).toMatchObject({ "features.hooks": true });
    expect(withShellPatchGuard(undefined).features).toBeUndefined();
    const theirs = withShellPatchGuard({ features: { plugins: false } }, "linux", { userTurnsHooksOff: true });
    expect(theirs.features).toEqual({ plugins: false });
    expect(theirs.hooks).toMatchObject({ PreToolUse: [{ matcher: "^(Bash|apply_patch)$" }] });
  });
});

describe("a call a hook blocked", () => {
  const run = (over: Partial<v2.HookRunSummary>): v2.HookRunSummary => ({
    id: "pre-tool-use:0:/<session-flags>/config.toml:c1",
    eventName: "preToolUse",
    handlerType: "command",
    executionMode: "sync",
    scope: "turn",
    sourcePath: "/<session-flags>/config.toml",
    source: "sessionFlags",
    displayOrder: 0n,
    status: "blocked",
    statusMessage: null,
    startedAt: 0n,
    completedAt: 0n,
    durationMs: 3n,
    entries: [{ kind: "feedback", text: GUARD_REASON }],
    ...over,
  });

  it("ours is one failed edit card with the reason; a user's hook is a generic failed card; a hook that let the call run is nothing", () => {
    expect(blockedToolCall(run({}))).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "hook-pre-tool-use:0:/<session-flags>/config.toml:c1",
        title: "apply_patch through the shell (refused: edits go through the editor)",
        kind: "edit",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: GUARD_REASON } }],
        rawOutput: { hook: "/<session-flags>/config.toml", status: "blocked" },
      },
    ]);
    expect(
      blockedToolCall(run({ source: "user", entries: [{ kind: "feedback", text: "no rm -rf here" }] }))[0],
    ).toMatchObject({ title: "Tool call blocked by a hook", kind: "other" });
    expect(blockedToolCall(run({ status: "completed" }))).toEqual([]);
  });
});
