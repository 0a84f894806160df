// Runs the official adapter (@agentclientprotocol/codex-acp, installed by `npm run bench` into
// the git-ignored .bench/peers) on this package's pinned codex, as the bench does. The command
// of the peer transcripts in tests/transcripts/peers: `node --import tsx tests/peers/official.ts`.
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { defaultCodexPath } from "../../tools/fake-model/index.js";

export const OFFICIAL_ENTRY = path.resolve(
  import.meta.dirname,
  "../../.bench/peers/node_modules/@agentclientprotocol/codex-acp/dist/index.js",
);

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  if (!existsSync(OFFICIAL_ENTRY)) {
    process.stderr.write(
      `error: the official adapter is not installed (${OFFICIAL_ENTRY}); npm run bench installs the peers\n`,
    );
    process.exit(127);
  }
  process.env.CODEX_PATH ??= defaultCodexPath();
  await import(pathToFileURL(OFFICIAL_ENTRY).href);
}
