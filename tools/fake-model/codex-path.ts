// The codex binary of the pinned @openai/codex dependency, for the offline fixtures
// (CODEX_PATH is deliberately ignored: fixtures test the version this package ships).
import { locateCodex } from "../../src/codex/index.js";

/** Absolute path of the native codex binary (or, without it, the package's launcher script). */
export function defaultCodexPath(): string {
  const command = locateCodex({});
  return command.via === "launcher" ? command.args[0]! : command.file;
}
