// Child process for the crash case: writes a large file through the local backend, announcing on
// stdout when the write has begun, so the parent can kill it mid-write.
import { createLocalFiles } from "../../src/editor-files/access/index.js";

const [target, megabytes] = [process.argv[2]!, Number(process.argv[3] ?? 200)];
const content = "n"
  .repeat(1023)
  .concat("\n")
  .repeat(megabytes * 1024);
process.stdout.write("writing\n");
await createLocalFiles().write({ path: target, content });
process.stdout.write("done\n");
