// Issue 25, route 1, end to end (real codex, the fake model): apply_patch run as a shell command,
// which Codex intercepts and applies on disk itself, never reaches the disk behind the editor. With
// the editor's write capability the model is refused with a pointer to the editor-backed tool (and
// the user sees a failed card); without it, Codex's own behaviour is unchanged.
import { spawn } from "node:child_process";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import {
  createCodexHome,
  defaultCodexPath,
  FAKE_MODEL_SLUG,
  startFakeModel,
  textResponse,
  toolCallResponse,
  type CodexHome,
  type FakeModel,
} from "../../tools/fake-model/index.js";
import { GUARD_HOOK_KEY, guardTrustHash, withShellPatchGuard } from "../../src/editor-files/shell-patch-guard.js";
import { startAdapter, type Adapter, modelOutputFor } from "../support/adapter.js";
import { waitFor } from "../support/wait-for.js";

const FS_CAPS: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };
let adapter: Adapter | undefined;
let extra: { fake?: FakeModel; home?: CodexHome } = {};

afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  await extra.fake?.close();
  await extra.home?.cleanup();
  extra = {};
});

const PATCH = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-first line\n+patched line\n*** End Patch";

/** The shell forms a model trained on apply_patch uses, for the tool Codex offers (`exec_command` takes `cmd`). */
const FORMS: Array<{ name: string; command: string }> = [
  { name: "heredoc", command: `apply_patch <<'EOF'\n${PATCH}\nEOF` },
  { name: "argument", command: `apply_patch '${PATCH}'` },
  { name: "cd first", command: `cd . && apply_patch <<'EOF'\n${PATCH}\nEOF` },
  { name: "nested shell", command: `bash -lc "apply_patch <<'EOF'\n${PATCH}\nEOF"` },
  // Issue 48: the patch's text hidden (base64), only the name in sight, quoted or behind env.
  {
    name: "encoded, through bash -c",
    command: `bash -c 'apply_patch "$0"' "$(printf %s ${Buffer.from(PATCH).toString("base64")} | base64 -d)"`,
  },
  {
    name: "encoded, after env",
    command: `printf %s ${Buffer.from(PATCH).toString("base64")} | base64 -d | env apply_patch`,
  },
];

type Editor = { buffers: Map<string, string>; writes: acp.WriteTextFileRequest[] };
function editor(): { ed: Editor; setupClient: (app: acp.ClientApp) => void } {
  const ed: Editor = { buffers: new Map(), writes: [] };
  return {
    ed,
    setupClient: (app) => {
      app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => ({
        content: ed.buffers.get(params.path) ?? (await readFile(params.path, "utf8")),
      }));
      app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        ed.writes.push(params);
        ed.buffers.set(params.path, params.content);
        return {};
      });
      app.onRequest(acp.methods.client.session.requestPermission, () => ({
        outcome: { outcome: "selected", optionId: "allow_once" },
      }));
    },
  };
}

/** A CODEX_HOME whose fake model offers `shellType` as its shell tool (the catalog is the user's; the adapter derives its own from it). */
async function homeWithShell(fake: FakeModel, shellType: string): Promise<CodexHome> {
  const home = await createCodexHome({ modelUrl: fake.url });
  const catalog = JSON.parse(await readFile(home.modelCatalogPath, "utf8")) as {
    models: Array<Record<string, unknown>>;
  };
  for (const m of catalog.models) if (m.slug === FAKE_MODEL_SLUG) m.shell_type = shellType;
  const own = path.join(home.base, "models.json");
  await writeFile(own, JSON.stringify(catalog));
  const config = await readFile(home.configPath, "utf8");
  // Codex's unified exec (exec_command) otherwise replaces the model's own shell tool.
  const edited = config
    .replace(/^model_catalog_json = .*$/m, `model_catalog_json = ${JSON.stringify(own)}`)
    .replace(/^plugins = false$/m, "plugins = false\nunified_exec = false");
  await writeFile(home.configPath, edited);
  return home;
}

describe("apply_patch through the shell, with the editor's write capability", () => {
  it("every form through exec_command: refused with the pointer to the editor-backed tool, the disk and the buffer untouched, a failed card shown", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const file = path.join(adapter.workspace, "notes.txt");
    await writeFile(file, "first line\nsecond line\n");
    ed.buffers.set(file, "first line\nan unsaved line\n");
    for (const [i, form] of FORMS.entries())
      adapter.fake.enqueue(toolCallResponse("exec_command", { cmd: form.command }, { callId: `sh-${i}` }));
    adapter.fake.enqueue(textResponse("done"));
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    expect((await adapter.prompt(sessionId, "patch it through the shell")).stopReason).toBe("end_turn");

    expect(await readFile(file, "utf8")).toBe("first line\nsecond line\n");
    expect(ed.writes).toEqual([]);
    for (const [i, form] of FORMS.entries()) {
      const out = modelOutputFor(adapter, `sh-${i}`);
      expect(out, form.name).toContain("mcp__acp_fs__apply_patch");
      expect(out, form.name).toContain("Nothing was changed");
    }
    const cards = adapter
      .updatesOf(sessionId)
      .filter(
        (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }> =>
          u.sessionUpdate === "tool_call" && u.title.startsWith("apply_patch through the shell"),
      );
    expect(cards).toHaveLength(FORMS.length);
    expect(cards.every((c) => c.status === "failed" && c.kind === "edit")).toBe(true);
  }, 60_000);

  it("the model then sends the patch to the editor-backed tool: it lands in the buffer (unsaved line kept), not on disk", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const file = path.join(adapter.workspace, "notes.txt");
    await writeFile(file, "first line\nsecond line\n");
    ed.buffers.set(file, "first line\nan unsaved line\n");
    adapter.fake.enqueue(
      toolCallResponse("exec_command", { cmd: FORMS[0]!.command }, { callId: "sh" }),
      toolCallResponse("apply_patch", { input: PATCH }, { namespace: "mcp__acp_fs", callId: "editor-patch" }),
      textResponse("done"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "patch it");
    expect(ed.buffers.get(file)).toBe("patched line\nan unsaved line\n");
    expect(await readFile(file, "utf8")).toBe("first line\nsecond line\n");
  }, 60_000);

  for (const trusted of [false, true]) {
    it(`a project's .codex/config.toml with [features] hooks = false does not turn the guard off (${trusted ? "trusted" : "untrusted"} project)`, async () => {
      const { setupClient } = editor();
      adapter = await startAdapter({ setupClient });
      const ws = adapter.workspace;
      if (trusted)
        await appendFile(
          path.join(adapter.home.codexHome, "config.toml"),
          `\n[projects."${ws}"]\ntrust_level = "trusted"\n`,
        );
      await mkdir(path.join(ws, ".codex"));
      await writeFile(path.join(ws, ".codex", "config.toml"), "[features]\nhooks = false\n");
      const file = path.join(ws, "notes.txt");
      await writeFile(file, "first line\n");
      adapter.fake.enqueue(
        toolCallResponse("exec_command", { cmd: FORMS[0]!.command }, { callId: "sh" }),
        textResponse("done"),
      );
      await adapter.initialize(FS_CAPS);
      const { sessionId } = await adapter.newSession();
      await adapter.prompt(sessionId, "patch it through the shell");
      expect(await readFile(file, "utf8")).toBe("first line\n");
      expect(modelOutputFor(adapter, "sh")).toContain("mcp__acp_fs__apply_patch");
    }, 60_000);
  }

  it("ordinary commands that only mention apply_patch still run", async () => {
    const { setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    adapter.fake.enqueue(
      toolCallResponse(
        "exec_command",
        { cmd: "echo the apply_patch tool && grep -c apply_patch /dev/null; echo ran" },
        { callId: "plain" },
      ),
      textResponse("done"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "run it");
    expect(modelOutputFor(adapter, "plain")).toContain("ran");
    expect(modelOutputFor(adapter, "plain")).not.toContain("blocked");
  }, 60_000);

  it("exec_command is the only shell tool codex offers, whatever the catalog's shell_type; shell and shell_command calls are refused by codex and write nothing", async () => {
    const fake = await startFakeModel([]);
    const home = await homeWithShell(fake, "shell_command");
    extra = { fake, home };
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient, fake, home });
    const file = path.join(adapter.workspace, "notes.txt");
    await writeFile(file, "first line\n");
    fake.enqueue(
      toolCallResponse("shell_command", { command: FORMS[0]!.command }, { callId: "shell-command" }),
      toolCallResponse("shell", { command: ["bash", "-lc", FORMS[0]!.command] }, { callId: "shell" }),
      textResponse("done"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "patch it");
    const offered = (fake.requests[0]?.body as { tools?: Array<{ name?: string }> }).tools?.map((t) => t.name) ?? [];
    // If a later codex offers these again, the guard's matcher (Bash) must be checked against them.
    expect(offered).toContain("exec_command");
    expect(offered).not.toContain("shell_command");
    expect(offered).not.toContain("shell");
    expect(modelOutputFor(adapter, "shell-command")).toContain("unsupported call");
    expect(modelOutputFor(adapter, "shell")).toContain("unsupported call");
    expect(await readFile(file, "utf8")).toBe("first line\n");
    expect(ed.writes).toEqual([]);
  }, 60_000);
});

describe("in a subagent's thread", () => {
  it("a subagent the model spawns is refused the shell form too, and has no native apply_patch", async () => {
    const { ed, setupClient } = editor();
    adapter = await startAdapter({ setupClient });
    const file = path.join(adapter.workspace, "notes.txt");
    await writeFile(file, "first line\n");
    const spawnAgent = {
      items: [
        {
          type: "function_call" as const,
          namespace: "multi_agent_v1",
          name: "spawn_agent",
          arguments: { message: "patch notes.txt" },
          callId: "spawn",
        },
      ],
    };
    // The parent's next request and the subagent's first race for the next response: both get the same.
    const patchViaShell = (callId: string) => toolCallResponse("exec_command", { cmd: FORMS[0]!.command }, { callId });
    adapter.fake.enqueue(
      spawnAgent,
      patchViaShell("shell-a"),
      patchViaShell("shell-b"),
      textResponse("done"),
      textResponse("done"),
      textResponse("done"),
    );
    await adapter.initialize(FS_CAPS);
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "use a subagent");
    // The subagent goes on after the parent's answer: wait until the model has been sent both
    // refusals (each call wholly handled by then, a write included). Not every scripted "done" is
    // asked for, so the model's empty queue is no sign of the end (waiting for it ran to a cap).
    const answered = (callId: string): boolean => {
      try {
        return modelOutputFor(adapter!, callId) !== "";
      } catch {
        return false;
      }
    };
    await waitFor(
      () => answered("shell-a") && answered("shell-b"),
      () => `the model to be told of both shell calls (requests so far: ${adapter!.fake.requests.length})`,
    );
    expect(adapter.fake.requests.length).toBeGreaterThanOrEqual(4);
    for (const r of adapter.fake.requests) {
      const tools = ((r.body as { tools?: Array<{ name?: string }> }).tools ?? []).map((t) => t.name);
      expect(tools).not.toContain("apply_patch");
    }
    expect(modelOutputFor(adapter, "shell-a")).toContain("mcp__acp_fs__apply_patch");
    expect(modelOutputFor(adapter, "shell-b")).toContain("mcp__acp_fs__apply_patch");
    expect(await readFile(file, "utf8")).toBe("first line\n");
    expect(ed.writes).toEqual([]);
  }, 60_000);
});

describe("without the editor's write capability", () => {
  it("Codex's own behaviour is unchanged: the shell form is applied by Codex on disk", async () => {
    adapter = await startAdapter({});
    const file = path.join(adapter.workspace, "notes.txt");
    await writeFile(file, "first line\n");
    adapter.fake.enqueue(
      toolCallResponse("exec_command", { cmd: FORMS[0]!.command }, { callId: "native" }),
      textResponse("done"),
    );
    await adapter.initialize({});
    const { sessionId } = await adapter.newSession();
    await adapter.prompt(sessionId, "patch it");
    expect(await readFile(file, "utf8")).toBe("patched line\n");
    expect(modelOutputFor(adapter, "native")).not.toContain("mcp__acp_fs__apply_patch");
  }, 60_000);
});

describe("the guard's trust", () => {
  it("the hash the adapter gives is the one the pinned codex computes for the hook, which it then trusts (hooks/list)", async () => {
    const fake = await startFakeModel([]);
    const home = await createCodexHome({ modelUrl: fake.url });
    extra = { fake, home };
    const child = spawn(defaultCodexPath(), ["app-server"], {
      env: { ...process.env, ...home.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    try {
      const answers = new Map<number, (m: { result?: unknown; error?: unknown }) => void>();
      let buf = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        buf += chunk;
        for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
          const msg = JSON.parse(buf.slice(0, nl)) as {
            id?: number;
            method?: string;
            result?: unknown;
            error?: unknown;
          };
          buf = buf.slice(nl + 1);
          if (msg.id !== undefined && msg.method === undefined) answers.get(msg.id)?.(msg);
        }
      });
      let id = 0;
      const call = (method: string, params: unknown): Promise<{ result?: any; error?: unknown }> =>
        new Promise((resolve) => {
          answers.set(++id, resolve);
          child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
        });
      await call("initialize", {
        clientInfo: { name: "test", title: null, version: "1" },
        capabilities: { experimentalApi: true },
      });
      child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
      const started = await call("thread/start", { cwd: home.base, config: withShellPatchGuard(undefined) });
      const listed = await call("hooks/list", { threadId: started.result.thread.id });
      const hooks = (listed.result.data as Array<{ hooks: Array<Record<string, unknown>> }>).flatMap((d) => d.hooks);
      expect(hooks.find((h) => h.key === GUARD_HOOK_KEY)).toMatchObject({
        currentHash: guardTrustHash(),
        trustStatus: "trusted",
        enabled: true,
      });
    } finally {
      child.kill();
    }
  }, 60_000);
});
