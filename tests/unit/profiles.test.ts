// Codex profiles as codex 0.171's --profile reads them (src/features/config-options/profiles.ts):
// the plain-named `<name>.config.toml` files of Codex's home, each read as a layer over
// config.toml (its keys one leaf at a time), under what a trusted project or `-c` sets; a legacy
// `[profiles.<name>]` table of the same name, or a file that is not TOML, is an error naming it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { v2 } from "../../src/codex/index.js";
import { listProfiles, readProfile, threadKeysOf, turnValuesOf } from "../../src/features/config-options/profiles.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function homeWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "profiles-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

/** A config/read answer with these top-level config keys and layers. */
const answer = (
  config: Record<string, unknown>,
  layers: Array<{ type: string; config: unknown; disabledReason?: string }> = [],
) =>
  ({
    config,
    origins: {},
    layers: layers.map((l) => ({
      name: { type: l.type },
      version: "1",
      config: l.config,
      disabledReason: l.disabledReason ?? null,
    })),
  }) as unknown as v2.ConfigReadResponse;

describe("profiles", () => {
  it("lists the plain-named <name>.config.toml files, sorted; not config.toml, other files, names --profile refuses, or 'none'", async () => {
    const home = await homeWith({
      "config.toml": "",
      "work.config.toml": "",
      "Fast_1-x.config.toml": "",
      "a.b.config.toml": "",
      "with space.config.toml": "",
      "none.config.toml": "",
      "work.config.toml.bak": "",
      "managed_config.toml": "",
    });
    expect(await listProfiles(home)).toEqual(["Fast_1-x", "work"]);
    expect(await listProfiles(path.join(home, "missing"))).toEqual([]);
  });

  it("reads a profile's keys one leaf at a time (tables merge as a layer does); turn settings and thread keys apart", async () => {
    const home = await homeWith({
      "work.config.toml": [
        'model = "gpt-5.5"',
        'model_reasoning_effort = "low"',
        'sandbox_mode = "read-only"',
        "[features]",
        "hooks = false",
        '[model_providers."my.proxy"]',
        'name = "p"',
        "",
      ].join("\n"),
    });
    const profile = await readProfile(home, "work", answer({}));
    expect(profile.keys).toEqual({
      model: "gpt-5.5",
      model_reasoning_effort: "low",
      sandbox_mode: "read-only",
      "features.hooks": false,
      "model_providers.my.proxy": { name: "p" },
    });
    expect(turnValuesOf(profile)).toEqual({ model: "gpt-5.5", effort: "low", sandbox: "read-only" });
    expect(threadKeysOf(profile, false)).toEqual({
      "features.hooks": false,
      "model_providers.my.proxy": { name: "p" },
    });
  });

  it("leaves out what an enabled project layer or -c sets (Codex puts them over the profile)", async () => {
    const home = await homeWith({
      "work.config.toml": [
        'model = "gpt-5.5"',
        'model_reasoning_effort = "low"',
        "[features]",
        "hooks = false",
        "shell_snapshot = false",
        "",
      ].join("\n"),
    });
    const layers = [
      { type: "user", config: { model: "fake-model" } },
      { type: "project", config: { model_reasoning_effort: "high" } },
      { type: "project", config: { model: "untrusted" }, disabledReason: "not trusted" },
      { type: "sessionFlags", config: { features: { hooks: true } } },
    ];
    const profile = await readProfile(home, "work", answer({}, layers));
    expect(profile.keys).toEqual({ model: "gpt-5.5", "features.shell_snapshot": false });
  });

  it("a legacy table of the same name in config.toml, and a file that is not TOML, are errors naming the profile", async () => {
    const home = await homeWith({
      "dup.config.toml": 'model = "a"\n',
      "broken.config.toml": 'model = "a"\nsandbox_mode = \n',
    });
    await expect(readProfile(home, "dup", answer({ profiles: { dup: { model: "b" } } }))).rejects.toThrow(
      /"dup".*\[profiles\.dup\]/,
    );
    await expect(readProfile(home, "broken", answer({}))).rejects.toThrow(/"broken".*broken\.config\.toml, line 2/);
    await expect(readProfile(home, "gone", answer({}))).rejects.toThrow(/"gone"/);
  });
});
