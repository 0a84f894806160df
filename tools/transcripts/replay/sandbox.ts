// Where a replay runs: a fresh directory with the workspace (seeded with the header's files), the
// recording client's other folders (<DIR_n>) and, when the header carries a fake model script,
// that model on 127.0.0.1 and a hermetic CODEX_HOME. Also the placeholders (<CWD>, <DIR_n>,
// <CODEX_HOME>, ..., <FAKE_MODEL_URL>) that stand for this run's paths and address.
// `record --fake-model` records in one too.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { log } from "../../../src/log/index.js";
import type { Transcript } from "../format.js";
import { EXTRA_FOLDER } from "../client-folders.js";
import { placeholdersToPaths, type Placeholders } from "../normalise.js";

export type Sandbox = {
  workspace: string;
  /** The agent's working directory. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** This run's paths, by placeholder. */
  placeholders: Placeholders;
  dispose(): Promise<void>;
};

/**
 * `extraEnv` (replay's --env) is applied last, over everything; `baseEnv` (a recorder's caller)
 * is what the hermetic home's variables (CODEX_HOME, HOME, TMPDIR...) are laid over.
 */
export async function prepareSandbox(
  header: Transcript["header"],
  extraEnv: Record<string, string> | undefined,
  baseEnv: NodeJS.ProcessEnv = process.env,
): Promise<Sandbox> {
  const runDir = await mkdtemp(path.join(os.tmpdir(), "acp-replay-"));
  const cleanups: Array<() => Promise<void>> = [() => rm(runDir, { recursive: true, force: true, maxRetries: 3 })];
  const dispose = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => log.warn({ err: error }, "replay: cleanup failed"));
    }
  };
  try {
    const workspace = path.join(runDir, "workspace");
    await mkdir(workspace, { recursive: true });
    const placeholders: Placeholders = { "<CWD>": await withRealpath(workspace) };
    let env: NodeJS.ProcessEnv = { ...baseEnv };

    if (header.fakeModel) {
      const fm = await import("../../fake-model/index.js");
      const { responses, approvalPolicy, sandboxMode, extraConfig } = header.fakeModel as {
        responses: unknown[];
        approvalPolicy?: unknown;
        sandboxMode?: unknown;
        extraConfig?: unknown;
      };
      // The script may name workspace paths (the file tools want absolute paths): `<CWD>` in it
      // stands for this run's workspace.
      const script = fm.parseFakeModelScript({ responses: placeholdersToPaths(responses, { "<CWD>": workspace }) });
      const model = await fm.startFakeModel(script);
      cleanups.push(() => model.close());
      // An agent given the model's address in its command or env (a peer adapter) records it as this.
      placeholders["<FAKE_MODEL_URL>"] = model.url;
      const homeOpts: Parameters<typeof fm.createCodexHome>[0] = {
        modelUrl: model.url,
        dir: path.join(runDir, "codex"),
      };
      if (typeof approvalPolicy === "string") homeOpts.approvalPolicy = approvalPolicy;
      if (typeof sandboxMode === "string") homeOpts.sandboxMode = sandboxMode;
      if (typeof extraConfig === "string") homeOpts.extraConfig = extraConfig;
      const home = await fm.createCodexHome(homeOpts);
      placeholders["<CODEX_HOME>"] = await withRealpath(home.codexHome);
      placeholders["<HOME>"] = await withRealpath(home.home);
      placeholders["<TMP>"] = await withRealpath(home.tmpdir);
      env = { ...env, ...home.env };
    }

    await createDirectories(header.workspace?.directories ?? [], runDir, placeholders);
    for (const [rel, content] of Object.entries(header.workspace?.files ?? {})) {
      const target = path.resolve(workspace, rel);
      if (!target.startsWith(workspace + path.sep))
        throw new Error(`workspace file ${JSON.stringify(rel)} escapes the workspace`);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, placeholdersToPaths(content, placeholders) as string);
    }
    env = { ...env, ...(placeholdersToPaths(header.env ?? {}, placeholders) as Record<string, string>), ...extraEnv };
    const cwd = header.agent.cwd === "<CWD>" ? workspace : process.cwd();
    return { workspace, cwd, env, placeholders, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * The recording client's other folders, fresh (`<DIR_n>`: runDir/dir-n, a placeholder of this
 * run), then the folders inside one (`<CWD>/sub`), which must stay inside this run's directory.
 */
async function createDirectories(
  directories: readonly string[],
  runDir: string,
  placeholders: Placeholders,
): Promise<void> {
  for (const name of directories) {
    const n = EXTRA_FOLDER.exec(name)?.[1];
    if (n === undefined) continue;
    const folder = path.join(runDir, `dir-${n}`);
    await mkdir(folder, { recursive: true });
    placeholders[name] = await withRealpath(folder);
  }
  for (const entry of directories) {
    if (EXTRA_FOLDER.test(entry)) continue;
    const target = path.resolve(placeholdersToPaths(entry, placeholders) as string);
    if (!target.startsWith(runDir + path.sep))
      throw new Error(`workspace directory ${JSON.stringify(entry)} is not inside the replay's folders`);
    await mkdir(target, { recursive: true });
  }
}

async function withRealpath(p: string): Promise<string[]> {
  const real = await realpath(p).catch(() => p);
  return real === p ? [p] : [p, real];
}
