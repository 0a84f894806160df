// Issue 16: the packed tarball is what users install. It holds what runs (no source maps, the
// license, the README and every file the README links to) and, unpacked beside the dependencies,
// completes a handshake and a turn against the fake model. (The dependencies come from this
// checkout: a test may not reach the registry.)
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { messageText, startAdapter, type Adapter } from "../support/adapter.js";
import { textResponse } from "../support/fake-model.js";

const repo = path.resolve(import.meta.dirname, "../..");
let dir: string;
let pkg: string;
let adapter: Adapter | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cca-pack-"));
  // --ignore-scripts: the suite built dist/ already; prepack would build it again under the agents other tests are running.
  const out = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", dir], {
    cwd: repo,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1)!;
  execFileSync("tar", ["-xzf", path.join(dir, out), "-C", dir]);
  pkg = path.join(dir, "package");
  await symlink(path.join(repo, "node_modules"), path.join(pkg, "node_modules"), "dir");
}, 60_000);

afterAll(async () => {
  await adapter?.close();
  await rm(dir, { recursive: true, force: true });
});

it("holds what runs: the bin, the license, the README and the files it links to; no source maps", async () => {
  const manifest = JSON.parse(await readFile(path.join(pkg, "package.json"), "utf8")) as {
    bin: Record<string, string>;
    engines: { node: string };
    license: string;
    scripts: Record<string, string>;
  };
  expect(existsSync(path.join(pkg, manifest.bin["codex-cli-acp"]!))).toBe(true);
  expect(manifest.engines.node).toBe(">=20");
  expect(manifest.scripts.prepare).toBeUndefined(); // nothing runs at install
  expect(
    (await readFile(path.join(pkg, "LICENSE"), "utf8")).startsWith("\n                                 Apache License"),
  ).toBe(true);
  expect((await readdir(path.join(pkg, "dist"))).filter((f) => f.endsWith(".map"))).toEqual([]);
  const readme = await readFile(path.join(pkg, "README.md"), "utf8");
  const links = [...readme.matchAll(/\]\(([^)#]+)\)/g)].map((m) => m[1]!).filter((l) => !/^https?:/.test(l));
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) expect(existsSync(path.join(pkg, link)), `README links to ${link}`).toBe(true);
});

it("runs from the package: --help, then a handshake and a turn", async () => {
  const help = execFileSync(process.execPath, [path.join(pkg, "dist/index.js"), "--help"], { encoding: "utf8" });
  expect(help).toContain("agent_servers");
  adapter = await startAdapter({ bin: path.join(pkg, "dist/index.js"), responses: [textResponse("from the package")] });
  const init = await adapter.initialize();
  expect(init.agentInfo?.name).toBe("codex-cli-acp");
  const { sessionId } = await adapter.newSession();
  expect((await adapter.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
  expect(messageText(adapter.updatesOf(sessionId))).toBe("from the package");
}, 60_000);

it("replays a transcript from the package: the transcript runner is bundled beside the agent (dist/transcripts.mjs)", () => {
  const bin = path.join(pkg, "dist/index.js");
  const out = execFileSync(
    process.execPath,
    [
      bin,
      "replay",
      "--trust",
      path.join(repo, "tests/transcripts/handshake.jsonl"),
      "--agent",
      "--",
      process.execPath,
      bin,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  expect(out).toMatch(/^PASS .*handshake\.jsonl/m);
}, 60_000);

it("a fresh clone packs what runs: prepack builds dist/, so the tarball has the bin (a publish from a clean checkout had none)", async () => {
  const clone = path.join(dir, "clone");
  execFileSync("git", ["clone", "--quiet", "--depth", "1", `file://${repo}`, clone]);
  expect(existsSync(path.join(clone, "dist"))).toBe(false);
  // The dependencies as `npm ci` lays them (a test may not reach the registry: this checkout's).
  await symlink(path.join(repo, "node_modules"), path.join(clone, "node_modules"), "dir");
  await mkdir(path.join(dir, "clone-pack"));
  const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", path.join(dir, "clone-pack")], {
    cwd: clone,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1)!;
  const listed = execFileSync("tar", ["-tzf", path.join(dir, "clone-pack", out)], { encoding: "utf8" }).split("\n");
  const manifest = JSON.parse(await readFile(path.join(clone, "package.json"), "utf8")) as {
    bin: Record<string, string>;
  };
  expect(listed).toContain(`package/${manifest.bin["codex-cli-acp"]}`);
  expect(listed).toContain("package/dist/agent.js");
}, 120_000);
