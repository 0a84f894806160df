// Runs Zed's adapter (@zed-industries/codex-acp, installed by `npm run bench` into the
// git-ignored .bench/peers) as the bench does: it embeds its own, older codex, which cannot read
// 0.169's model catalog, so it gets a copy of CODEX_HOME without the catalog line (the fake model
// and everything else stay). It does not exit on EOF: replay it with --stop-after-eof.
// The command of tests/transcripts/peers/zed.jsonl: `node --import tsx tests/peers/zed.ts`.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export const ZED_BINARY = path.resolve(
  import.meta.dirname,
  `../../.bench/peers/node_modules/@zed-industries/codex-acp-${process.platform}-${process.arch}/bin/codex-acp`,
);

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  if (!existsSync(ZED_BINARY)) {
    process.stderr.write(`error: Zed's adapter is not installed (${ZED_BINARY}); npm run bench installs the peers\n`);
    process.exit(127);
  }
  const source = process.env.CODEX_HOME;
  if (!source) {
    process.stderr.write("error: CODEX_HOME is not set (run it through replay or record --fake-model)\n");
    process.exit(2);
  }
  const home = await mkdtemp(path.join(os.tmpdir(), "zed-codex-home-"));
  const config = await readFile(path.join(source, "config.toml"), "utf8");
  await writeFile(
    path.join(home, "config.toml"),
    config
      .split("\n")
      .filter((l) => !l.startsWith("model_catalog_json"))
      .join("\n"),
  );
  if (existsSync(path.join(source, "auth.json")))
    await copyFile(path.join(source, "auth.json"), path.join(home, "auth.json"));
  const child = spawn(ZED_BINARY, [], {
    stdio: "inherit",
    env: { ...process.env, CODEX_HOME: home, RUST_LOG: "error" },
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => child.kill(signal));
  const code = await new Promise<number>((resolve) => child.on("close", (c, s) => resolve(c ?? (s ? 143 : 1))));
  await rm(home, { recursive: true, force: true });
  process.exit(code);
}
