// The guard against apply_patch through the shell (src/editor-files/shell-patch-guard.ts): its one line of sh,
// run by sh as Codex runs it, on the JSON Codex gives a PreToolUse hook; its thread config; and the
// card a blocked call becomes (src/bridge/hooks.ts). The real codex runs it in tests/e2e/shell-patch.test.ts.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { GUARD_HOOK_KEY, GUARD_REASON, guardCommand, guardTrustHash, withShellPatchGuard } from "../../src/editor-files/shell-patch-guard.js";
import { blockedToolCall } from "../../src/bridge/hooks.js";
import type { v2 } from "../../src/codex/index.js";

/** What the hook prints for a call of `tool` with `command` (Codex's PreToolUse input, abridged). */
function decide(command: string, tool = "Bash"): string {
  const input = JSON.stringify({ hook_event_name: "PreToolUse", tool_name: tool, tool_input: { command }, tool_use_id: "c1", cwd: "/ws" });
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
  ])("refuses %s", (_name, command) => {
    const out = JSON.parse(decide(command)) as { hookSpecificOutput: Record<string, string> };
    expect(out.hookSpecificOutput).toEqual({ hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: GUARD_REASON });
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
  ])("lets %s run", (_name, command) => {
    expect(decide(command)).toBe("");
  });

  it("the reason sends the model to the editor-backed tool and ends without a period (Codex appends '. Command: …')", () => {
    expect(GUARD_REASON).toContain("mcp__acp_fs__apply_patch");
    expect(GUARD_REASON.endsWith(".")).toBe(false);
  });
});

describe("the guard's thread config", () => {
  it("goes first among the hooks already there, keeps them and their trust, and trusts itself by its hash", () => {
    const theirs = { matcher: "^Bash$", hooks: [{ type: "command", command: "their-hook" }] };
    const config = withShellPatchGuard({ model: "m", hooks: { PreToolUse: [theirs], state: { "their-key": { trusted_hash: "sha256:x" } } } });
    const hooks = config.hooks as { PreToolUse: unknown[]; state: Record<string, unknown> };
    expect(config.model).toBe("m");
    expect(hooks.PreToolUse).toHaveLength(2);
    expect(hooks.PreToolUse[0]).toMatchObject({ matcher: "^(Bash|apply_patch)$", hooks: [{ type: "command", command: guardCommand() }] });
    expect(hooks.PreToolUse[1]).toEqual(theirs);
    expect(hooks.state).toEqual({ "their-key": { trusted_hash: "sha256:x" }, [GUARD_HOOK_KEY]: { trusted_hash: guardTrustHash() } });
    expect(guardTrustHash()).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(guardTrustHash("another command")).not.toBe(guardTrustHash());
  });
});

describe("a call a hook blocked", () => {
  const run = (over: Partial<v2.HookRunSummary>): v2.HookRunSummary =>
    ({
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
    }) as v2.HookRunSummary;

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
    expect(blockedToolCall(run({ source: "user", entries: [{ kind: "feedback", text: "no rm -rf here" }] }))[0]).toMatchObject({ title: "Tool call blocked by a hook", kind: "other" });
    expect(blockedToolCall(run({ status: "completed" }))).toEqual([]);
  });
});
