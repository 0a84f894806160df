// Child process for the permission cases: performs one FileAccess call and prints the outcome as
// one JSON line. Client backend: an editor that refuses everything (its answer is final).
import { createFileAccess, FileToolError, type EditorFiles } from "../../src/editor-files/access/index.js";

const job = JSON.parse(process.argv[2] ?? "{}") as { backend: "local" | "client"; op: "read" | "write"; params: never };
const refusing: EditorFiles = {
  readTextFile: () => Promise.reject(new Error("editor: permission denied")),
  writeTextFile: () => Promise.reject(new Error("editor: permission denied")),
};
const fa = createFileAccess(job.backend === "client" ? { editor: refusing } : {});
try {
  const result = job.op === "read" ? await fa.read(job.params) : await fa.write(job.params);
  process.stdout.write(`${JSON.stringify({ ok: true, result })}\n`);
} catch (err) {
  if (err instanceof FileToolError)
    process.stdout.write(`${JSON.stringify({ ok: false, code: err.code, message: err.message })}\n`);
  else throw err;
}
