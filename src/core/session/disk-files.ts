// The bridge's view of files for a session: the current text of small text files on disk, read
// for the full diffs of Codex's own patches (a binary or oversized file gives no diff).
import fs from "node:fs";
import { MAX_DIFF_FILE_BYTES, type TextFiles } from "../../bridge/index.js";

/** The bridge's view of files: the current text of small text files (for full diffs of Codex's own patches). */
export const diskFiles: TextFiles = {
  read(path) {
    try {
      const st = fs.statSync(path);
      if (!st.isFile() || st.size > MAX_DIFF_FILE_BYTES) return undefined;
      const buf = fs.readFileSync(path);
      return buf.includes(0) ? undefined : buf.toString("utf8");
    } catch {
      return undefined;
    }
  },
};
