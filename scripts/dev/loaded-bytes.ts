// Which of the bundle's files an agent build loads to serve initialize, session/new and one
// prompt, and their bytes (strace's openat): the bundle size that matters for start-up, for a
// before/after of a layout or bundling change. Usage: tsx scripts/dev/loaded-bytes.ts DIST_INDEX...
import { mkdtemp, readFile, realpath, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createCodexHome, startFakeModel } from "../../tools/fake-model/index.js";
import { LinePeer } from "../bench/rpc.js";

const fake = await startFakeModel([]);
const home = await createCodexHome({ modelUrl: fake.url, approvalPolicy: "never" });
const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cca-loaded-")));
for (const bin of process.argv.slice(2).map((b) => path.resolve(b))) {
  const trace = path.join(workspace, "trace");
  const peer = new LinePeer(
    "strace",
    ["-f", "-e", "trace=openat", "-o", trace, process.execPath, bin],
    { ...process.env, ...home.env, CODEX_ACP_LOG_LEVEL: "warn" },
    { jsonrpc: true },
  );
  await peer.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  });
  const s = await peer.request("session/new", { cwd: workspace, mcpServers: [] });
  fake.enqueue({ items: [{ type: "message", text: "hi", deltas: 1 }] });
  await peer.request("session/prompt", { sessionId: s.result.sessionId, prompt: [{ type: "text", text: "hello" }] });
  await peer.close();
  const dist = path.dirname(bin);
  const opened = new Set(
    [...(await readFile(trace, "utf8")).matchAll(/openat\([^"]*"([^"]+\.js)"/g)]
      .map((m) => m[1]!)
      .filter((f) => path.dirname(f) === dist),
  );
  let bytes = 0;
  for (const f of opened) bytes += (await stat(f)).size;
  process.stdout.write(`${bin}: ${opened.size} files, ${(bytes / 1024).toFixed(0)} KB loaded\n`);
}
await fake.close();
await home.cleanup();
