// The user's Codex configuration per directory (src/codex/user-config.ts): asked of Codex
// once while the files it comes from are unchanged, asked again when one changes, appears or goes.
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  configFingerprint,
  UserConfigReader,
  userTurnsHooksOff,
  type ConfigSource,
  type v2,
} from "../../src/codex/index.js";
import { FakeCodexClient, type Partly } from "../support/fake-codex-client.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A reader whose codex answers config/read with `answers` in turn (an Error: the call fails), counting the calls. */
function codexAnswering(
  answers: Array<Partly<v2.ConfigReadResponse["config"]> | Error>,
  prefetched?: (cwd: string, fingerprint: string) => Promise<{ config: Record<string, unknown> }> | undefined,
): { reader: (home: string) => UserConfigReader; calls: () => number } {
  let calls = 0;
  const codex = new FakeCodexClient({
    answers: {
      "config/read": (params) => {
        expect(params).toMatchObject({ includeLayers: true });
        const answer = answers[Math.min(calls++, answers.length - 1)]!;
        if (answer instanceof Error) throw answer;
        return { config: answer };
      },
    },
    otherwise: ({ method }) => expect.unreachable(`codex was asked ${method}`),
  });
  const log = { warn: () => undefined, debug: () => undefined };
  const source: ConfigSource = {
    client: async () => codex.client,
    ...(prefetched ? { takePrefetchedConfig: prefetched as ConfigSource["takePrefetchedConfig"] } : {}),
  };
  return { reader: (home: string) => new UserConfigReader(source, log, home), calls: () => calls };
}

async function tree(): Promise<{ home: string; project: string; cwd: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cca-config-"));
  dirs.push(root);
  const home = path.join(root, "home");
  const project = path.join(root, "project");
  const cwd = path.join(project, "src");
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
  await writeFile(path.join(home, "config.toml"), 'model = "a"\n');
  return { home, project, cwd };
}

describe("the user's configuration per directory", () => {
  it("is read once while its files stay as they were", async () => {
    const { home, cwd } = await tree();
    const { reader: readerIn, calls } = codexAnswering([{ approval_policy: "never" }]);
    const reader = readerIn(home);
    expect((await reader.read(cwd))?.config).toEqual({ approval_policy: "never" });
    expect((await reader.read(cwd))?.config).toEqual({ approval_policy: "never" });
    expect(calls()).toBe(1);
  });

  it("is read again when the user's config.toml changes, or a project's .codex/config.toml appears", async () => {
    const { home, project, cwd } = await tree();
    const { reader: readerIn, calls } = codexAnswering([
      { approval_policy: "never" },
      { approval_policy: "on-request" },
      { sandbox_mode: "read-only" },
    ]);
    const reader = readerIn(home);
    await reader.read(cwd);
    await writeFile(path.join(home, "config.toml"), 'model = "a"\napproval_policy = "on-request"\n');
    await utimes(path.join(home, "config.toml"), new Date(), new Date(Date.now() + 5000));
    expect((await reader.read(cwd))?.config).toEqual({ approval_policy: "on-request" });
    await mkdir(path.join(project, ".codex"));
    await writeFile(path.join(project, ".codex", "config.toml"), 'sandbox_mode = "read-only"\n');
    expect((await reader.read(cwd))?.config).toEqual({ sandbox_mode: "read-only" });
    expect(calls()).toBe(3);
  });

  it("a failed read is not kept: the next session asks again", async () => {
    const { home, cwd } = await tree();
    const { reader: readerIn, calls } = codexAnswering([new Error("codex restarting"), { approval_policy: "never" }]);
    const reader = readerIn(home);
    expect((await reader.read(cwd))?.config).toBeUndefined();
    expect((await reader.read(cwd))?.config).toEqual({ approval_policy: "never" });
    expect(calls()).toBe(2);
  });

  it("a project becoming a git repository (its root, for trust) reads again; commits in it do not", async () => {
    const { home, project, cwd } = await tree();
    const { reader: readerIn, calls } = codexAnswering([{}, { approval_policy: "never" }]);
    const reader = readerIn(home);
    await reader.read(cwd);
    await mkdir(path.join(project, ".git"));
    await reader.read(cwd);
    await writeFile(path.join(project, ".git", "index"), "changed");
    await reader.read(cwd);
    expect(calls()).toBe(2);
  });

  it("takes the answer to the config/read written as codex was spawned, for this folder as its files are now: codex is not asked again", async () => {
    const { home, cwd } = await tree();
    const asked: Array<[string, string]> = [];
    const { reader: readerIn, calls } = codexAnswering([{ approval_policy: "on-request" }], (dir, fingerprint) => {
      asked.push([dir, fingerprint]);
      return Promise.resolve({ config: { approval_policy: "never" } });
    });
    const reader = readerIn(home);
    expect((await reader.read(cwd))?.config).toEqual({ approval_policy: "never" });
    // Kept like any answer: the second session in the folder asks nobody.
    expect((await reader.read(cwd))?.config).toEqual({ approval_policy: "never" });
    expect(calls()).toBe(0);
    expect(asked).toEqual([[cwd, configFingerprint(cwd, home)]]);
  });

  it("asks codex when that early config/read failed, or there was none for this folder", async () => {
    const { home, cwd } = await tree();
    const failed = codexAnswering([{ approval_policy: "never" }], () => Promise.reject(new Error("codex exited")));
    expect((await failed.reader(home).read(cwd))?.config).toEqual({ approval_policy: "never" });
    expect(failed.calls()).toBe(1);
    const none = codexAnswering([{ sandbox_mode: "read-only" }], () => undefined);
    expect((await none.reader(home).read(cwd))?.config).toEqual({ sandbox_mode: "read-only" });
    expect(none.calls()).toBe(1);
  });
});

describe("whether the user turned Codex's hooks off", () => {
  const layer = (type: string, config: unknown, disabledReason: string | null = null) => ({
    name: { type },
    version: "v",
    config,
    disabledReason,
  });
  const answer = (...layers: ReturnType<typeof layer>[]) => ({ config: {}, origins: {}, layers }) as never;

  it("their config.toml, the system's or a managed layer saying hooks = false: yes", () => {
    for (const type of ["user", "system", "enterpriseManaged", "sessionFlags"])
      expect(userTurnsHooksOff(answer(layer(type, { features: { hooks: false } }))), type).toBe(true);
  });

  it("a project's .codex/config.toml, trusted or not, is not the user's; nor hooks left on, or no answer", () => {
    expect(
      userTurnsHooksOff(answer(layer("project", { features: { hooks: false } }), layer("user", { model: "x" }))),
    ).toBe(false);
    expect(
      userTurnsHooksOff(answer(layer("project", { features: { hooks: false } }, "add it as a trusted project"))),
    ).toBe(false);
    expect(userTurnsHooksOff(answer(layer("user", { features: { hooks: true } }), layer("system", {})))).toBe(false);
    expect(userTurnsHooksOff(answer(layer("user", { features: "odd" })))).toBe(false);
    expect(userTurnsHooksOff(undefined)).toBe(false);
    expect(userTurnsHooksOff({ config: {}, origins: {}, layers: null } as never)).toBe(false);
  });
});
