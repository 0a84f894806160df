// Records the peer transcripts (tests/transcripts/peers) through `codex-cli-acp record
// --fake-model`, as anyone would record another agent. The peers are installed by `npm run
// bench` into the git-ignored .bench/peers.
//   npx tsx scripts/record-peers.ts
import path from "node:path";
import { recordTextTurn } from "../tests/support/record-session.js";

const repo = path.resolve(import.meta.dirname, "..");

/** One streamed text turn. */
export const PEER_SCRIPT = {
  responses: [{ items: [{ type: "message", text: "Hello from the fake model, streamed in parts.", deltas: 4 }] }],
};

const PEERS: Record<string, string[]> = {
  official: ["node", "--import", "tsx", "tests/peers/official.ts"],
  zed: ["node", "--import", "tsx", "tests/peers/zed.ts"],
};

for (const [name, command] of Object.entries(PEERS)) {
  if (process.argv.length > 2 && !process.argv.includes(name)) continue;
  const out = path.join(repo, "tests/transcripts/peers", `${name}.jsonl`);
  await recordTextTurn(command, out, PEER_SCRIPT);
  process.stdout.write(`recorded ${path.relative(repo, out)}\n`);
}
