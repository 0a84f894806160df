// How a transcript reaches the disk: readable by its owner only, whatever was there before.
import { rename, rm, writeFile } from "node:fs/promises";

/**
 * Writes `text` to `file` atomically with mode 0600: into `<file>.tmp`, created by this call with
 * that mode (a temp file left by an earlier run is removed, not reused: its mode and owner could
 * be anyone's), then renamed over `file` (so an existing file's mode is not kept either).
 */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`;
  const create = () => writeFile(tmp, text, { mode: 0o600, flag: "wx" });
  try {
    await create();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    await rm(tmp, { force: true });
    await create();
  }
  // A rename that fails (`file` a folder, say) leaves no copy of the transcript beside it.
  await rename(tmp, file).catch(async (error: unknown) => {
    await rm(tmp, { force: true });
    throw error;
  });
}
