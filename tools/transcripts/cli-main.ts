// Stand-alone entry for development and tests: `npx tsx tools/transcripts/cli-main.ts record|replay ...`.
// (The shipped bin, src/index.ts, dispatches the same subcommands to runTranscriptCli.)
import { runTranscriptCli } from "./cli.js";

const code = await runTranscriptCli(process.argv.slice(2));
process.exit(code);
