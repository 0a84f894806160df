// The peer adapters the bench measures in the same run: the official TypeScript adapter
// (@agentclientprotocol/codex-acp, run on the same codex binary through its CODEX_PATH) and Zed's
// Rust adapter (@zed-industries/codex-acp, which embeds its own codex). Installed on demand into
// the git-ignored .bench/peers (not package dependencies). BENCH_PEERS=0 leaves them out.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile, copyFile } from "node:fs/promises";
import path from "node:path";

export type PeerSide = { name: string; label: string; file: string; args: string[]; env: NodeJS.ProcessEnv };

const OFFICIAL = "@agentclientprotocol/codex-acp";
const ZED = "@zed-industries/codex-acp";

export async function preparePeers(
  repo: string,
  env: NodeJS.ProcessEnv,
  codexPath: string,
): Promise<{ peers: PeerSide[]; notes: string[] }> {
  const notes: string[] = [];
  if (process.env.BENCH_PEERS === "0") return { peers: [], notes: ["peers left out (BENCH_PEERS=0)"] };
  const dir = path.join(repo, ".bench", "peers");
  const modules = path.join(dir, "node_modules");
  if (!existsSync(path.join(modules, OFFICIAL)) || !existsSync(path.join(modules, ZED))) {
    await mkdir(dir, { recursive: true });
    process.stderr.write(`bench: installing ${OFFICIAL} and ${ZED} into .bench/peers\n`);
    try {
      execFileSync("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", OFFICIAL, ZED], {
        stdio: ["ignore", "ignore", "inherit"],
      });
    } catch (err) {
      return {
        peers: [],
        notes: [`peers not installed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`],
      };
    }
  }
  const peers: PeerSide[] = [];
  const officialEntry = path.join(modules, OFFICIAL, "dist", "index.js");
  if (existsSync(officialEntry)) {
    const version = (
      JSON.parse(await readFile(path.join(modules, OFFICIAL, "package.json"), "utf8")) as { version: string }
    ).version;
    peers.push({
      name: "official",
      label: `official TS adapter ${version}`,
      file: process.execPath,
      args: [officialEntry],
      env: { ...env, CODEX_PATH: codexPath },
    });
  } else notes.push(`${OFFICIAL}: no dist/index.js`);
  const zedBin = path.join(modules, `${ZED}-${process.platform}-${process.arch}`, "bin", "codex-acp");
  if (existsSync(zedBin) && env.CODEX_HOME) {
    const version = (JSON.parse(await readFile(path.join(modules, ZED, "package.json"), "utf8")) as { version: string })
      .version;
    // Its embedded codex predates 0.169's model catalog format: the same home and fake model,
    // without the catalog file (it falls back to its own metadata for the fake model).
    const home = path.join(dir, "zed-codex-home");
    await mkdir(home, { recursive: true });
    const config = await readFile(path.join(env.CODEX_HOME, "config.toml"), "utf8");
    await writeFile(
      path.join(home, "config.toml"),
      config
        .split("\n")
        .filter((l) => !l.startsWith("model_catalog_json"))
        .join("\n"),
    );
    const auth = path.join(env.CODEX_HOME, "auth.json");
    if (existsSync(auth)) await copyFile(auth, path.join(home, "auth.json"));
    peers.push({
      name: "zed",
      label: `Zed's adapter ${version} (own codex)`,
      file: zedBin,
      args: [],
      env: { ...env, CODEX_HOME: home, RUST_LOG: "error" },
    });
    notes.push("Zed's adapter runs the codex built into it, not the pinned codex binary; its RSS includes that codex");
  } else notes.push(`${ZED}: no binary for ${process.platform}-${process.arch}`);
  return { peers, notes };
}
