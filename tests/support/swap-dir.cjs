// Swaps a folder with a link to another folder and back, as fast as it can, until killed: what a
// model's background command could do to race the file tools' checks (tests/unit/pinned-dir.test.ts).
const fs = require("node:fs");
const [dir, outside] = process.argv.slice(2);
const aside = `${dir}.real`;
const link = `${dir}.link`;
fs.symlinkSync(outside, link);
process.send("ready");
for (;;) {
  try {
    fs.renameSync(dir, aside);
    fs.renameSync(link, dir);
    fs.renameSync(dir, link);
    fs.renameSync(aside, dir);
  } catch {
    // A rename that met the other's state: go on swapping.
  }
}
