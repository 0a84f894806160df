// Issue 16: a real third-party ACP client (acpx, a dev dependency) drives the agent: a text turn,
// an approved command, a rejected command and a file-tool read served by acpx's own fs. Issue 28:
// the pinned acpx is the newest on npm (0.19.1, `npm view acpx dist-tags`); with it also a slash
// command, an edit through its fs and `--model`.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createCodexHome,
  startFakeModel,
  textResponse,
  toolCall,
  type CodexHome,
  type FakeModel,
} from "../../tools/fake-model/index.js";
import { DIST_BIN } from "../support/adapter.js";

const run = promisify(execFile);
const ACPX = path.resolve(import.meta.dirname, "../../node_modules/acpx/dist/cli.js");
let fake: FakeModel;
let workspace: string;
let env: NodeJS.ProcessEnv;
const cleanup: string[] = [];
let home: CodexHome | undefined;

beforeEach(async () => {
  fake = await startFakeModel([]);
  home = await createCodexHome({ modelUrl: fake.url });
  workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-acpx-ws-")));
  const acpxHome = await mkdtemp(path.join(os.tmpdir(), "cca-acpx-home-"));
  cleanup.push(workspace, acpxHome);
  // acpx keeps its own state under HOME: a fresh one per test.
  env = { ...process.env, ...home.env, HOME: acpxHome, CODEX_ACP_LOG_LEVEL: "warn" };
});

afterEach(async () => {
  await fake.close();
  await home?.cleanup();
  home = undefined;
  for (const d of cleanup.splice(0)) await rm(d, { recursive: true, force: true });
});

/** `default`: acpx's own policy (reads and searches approved, anything else asked; no terminal here, so refused). */
async function acpx(
  policy: "--approve-all" | "--deny-all" | "default",
  prompt: string,
  extra: string[] = [],
): Promise<{ stdout: string; stderr: string; code: number }> {
  const flags = [...(policy === "default" ? [] : [policy]), ...extra];
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [
        ACPX,
        "--agent",
        `${process.execPath} ${DIST_BIN}`,
        "--cwd",
        workspace,
        ...flags,
        "--format",
        "text",
        "--timeout",
        "60",
        "exec",
        prompt,
      ],
      { env, timeout: 90_000 },
    );
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? "", stderr: e.stderr ?? "", code: typeof e.code === "number" ? e.code : 1 };
  }
}

const escalated = (cmd: string, callId: string) =>
  toolCall("exec_command", { cmd, sandbox_permissions: "require_escalated", justification: "needs it" }, { callId });

describe.skipIf(!existsSync(ACPX))("through acpx", () => {
  it("a text turn", async () => {
    fake.enqueue(textResponse("Hello from codex-cli-acp."));
    const r = await acpx("--approve-all", "say hello");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Hello from codex-cli-acp.");
  });

  it("a slash command is answered by the agent itself, not sent to the model", async () => {
    const r = await acpx("--approve-all", "/status");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Session status");
    expect(r.stdout).toContain("fake-model");
    expect(fake.requests).toHaveLength(0);
  });

  it("--model picks the model (acpx sets our model config option) and the turn runs on it", async () => {
    fake.enqueue(textResponse("on the other model"));
    const r = await acpx("--approve-all", "say hello", ["--model", "gpt-5.5"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("on the other model");
    expect(fake.requests[0]?.body.model).toBe("gpt-5.5");
  });

  it("an approved command runs", async () => {
    const target = path.join(workspace, "approved.txt");
    fake.enqueue({ items: [escalated(`echo yes > ${target}`, "c1")] }, textResponse("ran it"));
    const r = await acpx("--approve-all", "write the file");
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(target, "utf8")).toBe("yes\n");
  });

  it("a rejected command does not run, and the turn still ends", async () => {
    const target = path.join(workspace, "rejected.txt");
    fake.enqueue({ items: [escalated(`echo no > ${target}`, "c2")] }, textResponse("could not"));
    const r = await acpx("--deny-all", "write the file");
    expect(existsSync(target)).toBe(false);
    expect(r.stdout + r.stderr).toMatch(/could not|denied|reject|cancel/i);
  });

  it("with acpx's default policy, a destructive escalated command that Codex parses as a search is asked, not auto-approved", async () => {
    const notes = path.join(workspace, "notes.txt");
    await writeFile(notes, "keep me\n");
    fake.enqueue({ items: [escalated("find . -name notes.txt -delete", "del")] }, textResponse("tried"));
    await acpx("default", "delete notes.txt");
    expect(await readFile(notes, "utf8")).toBe("keep me\n");
  });

  it("a write acpx refuses reaches the model with acpx's reason, not a bare Internal error, and nothing is written", async () => {
    const file = path.join(workspace, "refused.txt");
    fake.enqueue(
      {
        items: [
          toolCall("write_text_file", { path: file, content: "no\n" }, { callId: "w1", namespace: "mcp__acp_fs" }),
        ],
      },
      textResponse("refused"),
    );
    await acpx("--deny-all", "write refused.txt");
    const output = JSON.stringify(fake.requests[1]?.body.input ?? []);
    expect(output).toContain("the editor refused: ");
    expect(output).not.toContain("the editor refused: Internal error");
    expect(existsSync(file)).toBe(false);
  });

  it("a file-tool read is served by acpx's fs", async () => {
    await writeFile(path.join(workspace, "notes.txt"), "read me through acpx\n");
    fake.enqueue(
      {
        items: [
          toolCall(
            "read_text_file",
            { path: path.join(workspace, "notes.txt") },
            { callId: "r1", namespace: "mcp__acp_fs" },
          ),
        ],
      },
      textResponse("read it"),
    );
    const r = await acpx("--approve-all", "read notes.txt");
    expect(r.code, r.stderr).toBe(0);
    const next = JSON.stringify(fake.requests[1]?.body.input ?? []);
    expect(next).toContain("read me through acpx");
  });

  it("apply_patch through the shell is refused; the same patch through the editor-backed tool lands via acpx's fs", async () => {
    const file = path.join(workspace, "notes.txt");
    await writeFile(file, "before\n");
    const patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-before\n+after\n*** End Patch";
    fake.enqueue(
      { items: [toolCall("exec_command", { cmd: `apply_patch <<'EOF'\n${patch}\nEOF` }, { callId: "sh" })] },
      { items: [toolCall("apply_patch", { input: patch }, { callId: "p1", namespace: "mcp__acp_fs" })] },
      textResponse("patched"),
    );
    const r = await acpx("--approve-all", "patch notes.txt");
    expect(r.code, r.stderr).toBe(0);
    const refused = JSON.stringify(fake.requests[1]?.body.input ?? []);
    expect(refused).toContain("mcp__acp_fs__apply_patch");
    // acpx writes what fs/write_text_file gives it to disk: the edit arrived through the client.
    expect(await readFile(file, "utf8")).toBe("after\n");
    const result = (fake.requests[2]?.body.input as Array<{ type: string; call_id?: string; output?: unknown }>).find(
      (i) => i.type === "function_call_output" && i.call_id === "p1",
    );
    expect(JSON.stringify(result?.output)).toMatch(/success.*true/);
  });
});
