// (Re)generates the golden transcripts in tests/transcripts/ by really recording them: for each
// scenario of scripts/golden-scenarios.ts, a fake model and a hermetic CODEX_HOME are started, `codex-cli-acp record`
// proxies a real ACP SDK client to the bundled adapter (dist/index.js), and the recording is
// post-edited to be portable: the header gets the scenario's fakeModel script and workspace
// files, this run's directories become placeholders (<CWD>, <CODEX_HOME>, <HOME>, <TMP>), and the
// recording machine's cwd/paths are dropped.
//
// A scenario with `protocol: 2` is driven by the SDK's ACP v2 client; when the agent answers its
// `initialize` with version 1 (it does not serve v2), that scenario is skipped with a message and
// the others are recorded.
//
// Usage (after `npm run build`):  npx tsx scripts/record-golden.ts [name...]
//   e.g. `npx tsx scripts/record-golden.ts cancel` re-records tests/transcripts/cancel.jsonl only.
// Then check: `CCA_SKIP_BUILD=1 npx vitest run tests/e2e/transcripts-golden.test.ts`.
import * as acp from "@agentclientprotocol/sdk";
import * as acp2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { createCodexHome, parseFakeModelScript, startFakeModel } from "../tools/fake-model/index.js";
import { parseTranscript, serializeTranscript, type TranscriptHeader } from "../tools/transcripts/format.js";
import { pathsToPlaceholders, placeholdersToPaths, type Placeholders } from "../tools/transcripts/normalise.js";
import { SCENARIOS, type Scenario, type V1Scenario, type V2Scenario } from "./golden-scenarios.js";

const repo = path.resolve(import.meta.dirname, "..");
const OUT_DIR = path.join(repo, "tests/transcripts");
const AGENT = ["node", "dist/index.js"];
const CLIENT_INFO = { name: "golden-client", version: "1.0.0" };

type AgentChild = ChildProcessByStdio<Writable, Readable, null>;

function streamTo(child: AgentChild) {
  return {
    output: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    input: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  };
}

async function driveV1(sc: V1Scenario, child: AgentChild, workspace: string): Promise<void> {
  const seen = new Map<string, Array<() => void>>();
  const arrived = new Set<string>();
  const app = acp.client(CLIENT_INFO).onNotification(acp.methods.client.session.update, ({ params }) => {
    const kind = params.update.sessionUpdate;
    arrived.add(kind);
    for (const r of seen.get(kind) ?? []) r();
    seen.delete(kind);
  });
  sc.handlers?.(app);
  const { output, input } = streamTo(child);
  await app.connectWith(acp.ndJsonStream(output, input), async (agent) => {
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: sc.clientCapabilities,
      clientInfo: CLIENT_INFO,
    });
    await sc.drive({
      agent,
      workspace,
      waitForUpdate: (kind) =>
        arrived.has(kind)
          ? Promise.resolve()
          : new Promise<void>((resolve) => seen.set(kind, [...(seen.get(kind) ?? []), resolve])),
    });
  });
}

/** Drives a v2 scenario; returns the error when the agent refused the v2 `initialize` (the caller looks at why). */
async function driveV2(sc: V2Scenario, child: AgentChild, workspace: string): Promise<Error | undefined> {
  let waiting: Array<{ matches: (u: acp2.SessionUpdate) => boolean; resolve: (u: acp2.SessionUpdate) => void }> = [];
  const app = acp2.client(CLIENT_INFO).onNotification(acp2.methods.client.session.update, ({ params }) => {
    const hit = waiting.filter((w) => w.matches(params.update));
    waiting = waiting.filter((w) => !hit.includes(w));
    for (const w of hit) w.resolve(params.update);
  });
  sc.handlers?.(app);
  const { output, input } = streamTo(child);
  let initialized = false;
  try {
    await app.connectWith(acp2.ndJsonStream(output, input), async (agent) => {
      await agent.request(acp2.methods.agent.initialize, {
        protocolVersion: 2,
        info: CLIENT_INFO,
        capabilities: sc.capabilities,
      });
      initialized = true;
      await sc.drive({
        agent,
        workspace,
        nextUpdate: (matches) => new Promise((resolve) => waiting.push({ matches, resolve })),
      });
    });
  } catch (error) {
    if (initialized) throw error;
    return error as Error;
  }
  return undefined;
}

/** The protocolVersion of the agent's answer to `initialize` in a raw recording. */
async function answeredVersion(raw: string): Promise<unknown> {
  const t = parseTranscript(await readFile(raw, "utf8"), raw);
  const request = t.entries.find(
    (e) => e.type === "message" && e.dir === "client->agent" && e.msg.method === "initialize",
  );
  const id = request?.type === "message" ? request.msg.id : undefined;
  const answer = t.entries.find(
    (e) => e.type === "message" && e.dir === "agent->client" && e.msg.method === undefined && e.msg.id === id,
  );
  return answer?.type === "message"
    ? (answer.msg.result as { protocolVersion?: unknown } | undefined)?.protocolVersion
    : undefined;
}

async function recordScenario(name: string, sc: Scenario): Promise<string | { skipped: string }> {
  const runDir = await realpath(await mkdtemp(path.join(os.tmpdir(), `golden-${name}-`)));
  const workspace = path.join(runDir, "workspace");
  await mkdir(workspace);
  for (const [rel, content] of Object.entries(sc.files ?? {})) {
    await mkdir(path.dirname(path.join(workspace, rel)), { recursive: true });
    await writeFile(path.join(workspace, rel), content);
  }
  const script = parseFakeModelScript({
    responses: placeholdersToPaths(sc.fakeModel.responses, { "<CWD>": workspace }),
  });
  const model = await startFakeModel(script);
  const homeOpts: Parameters<typeof createCodexHome>[0] = { modelUrl: model.url, dir: path.join(runDir, "codex") };
  if (sc.fakeModel.approvalPolicy) homeOpts.approvalPolicy = sc.fakeModel.approvalPolicy;
  if (sc.fakeModel.sandboxMode) homeOpts.sandboxMode = sc.fakeModel.sandboxMode;
  const home = await createCodexHome(homeOpts);
  const raw = path.join(runDir, "raw.jsonl");
  try {
    // `record` exactly as an editor would start it: its stdio is the editor's side of the pipe.
    // --keep-secrets: a golden's editor buffers are fixtures the replay must serve again (there
    // are no credentials: the fake model takes none).
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "tools/transcripts/cli-main.ts", "record", "--out", raw, "--keep-secrets", "--", ...AGENT],
      {
        cwd: repo,
        env: { ...process.env, ...home.env },
        stdio: ["pipe", "pipe", "inherit"],
      },
    );
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    let refused: Error | undefined;
    let code: number | null = null;
    try {
      if (sc.protocol === 2) refused = await driveV2(sc, child, workspace);
      else await driveV1(sc, child, workspace);
    } finally {
      // Also when the drive failed: the recorder must be done with the run's directory before it goes.
      child.stdin.end();
      code = await exit;
    }
    if (refused) {
      const answered = await answeredVersion(raw);
      if (answered !== undefined && answered !== 2)
        return {
          skipped: `the agent answered initialize with protocolVersion ${String(answered)}: it does not serve ACP v2 yet`,
        };
      throw refused;
    }
    if (code !== 0) throw new Error(`record exited with ${String(code)}`);

    // Post-edit: portable header with the fake model script, placeholders instead of this run's paths.
    const t = parseTranscript(await readFile(raw, "utf8"), raw);
    const placeholders: Placeholders = {
      "<CWD>": workspace,
      "<CODEX_HOME>": home.codexHome,
      "<HOME>": home.home,
      "<TMP>": home.tmpdir,
    };
    const header: TranscriptHeader = {
      type: "header",
      version: 1,
      agent: { command: AGENT },
      protocolVersion: t.header.protocolVersion,
      ...(t.header.clientCapabilities ? { clientCapabilities: t.header.clientCapabilities } : {}),
      fakeModel: sc.fakeModel,
      ...(sc.files ? { workspace: { files: sc.files } } : {}),
      recordedAt: t.header.recordedAt,
    };
    const entries = t.entries.map(({ line: _line, ...e }) =>
      e.type === "raw"
        ? { ...e, text: pathsToPlaceholders(e.text, placeholders) as string }
        : { ...e, msg: pathsToPlaceholders(e.msg, placeholders) as Record<string, unknown> },
    );
    const text = serializeTranscript(header, entries);
    for (const leak of [runDir, repo, os.homedir()]) {
      if (text.includes(leak)) console.warn(`warning: ${name}: the transcript still contains ${leak}`);
    }
    const out = path.join(OUT_DIR, `${name}.jsonl`);
    await writeFile(out, text);
    return out;
  } finally {
    await model.close();
    await rm(runDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

const wanted = process.argv.slice(2);
for (const name of wanted)
  if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(", ")}`);
await mkdir(OUT_DIR, { recursive: true });
for (const [name, sc] of Object.entries(SCENARIOS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const out = await recordScenario(name, sc);
  if (typeof out === "string") console.log(`recorded ${path.relative(repo, out)}`);
  else console.log(`skipped ${name}: ${out.skipped}`);
}
