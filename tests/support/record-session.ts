// Records one session of an agent through `codex-cli-acp record --fake-model` exactly as anyone
// would record another agent: a real ACP SDK client on one side, the agent on the other, the
// project's fake model behind it. Used by scripts/record-peers.ts and the runner's tests.
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";

const repo = path.resolve(import.meta.dirname, "../..");

/** Records a handshake, a session in the fake-model workspace and one prompt ("hi") into `out`. */
export async function recordTextTurn(command: string[], out: string, script: { responses: unknown[] }): Promise<void> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), "record-session-"));
  try {
    const scriptFile = path.join(scratch, "script.json");
    await writeFile(scriptFile, JSON.stringify(script));
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "tools/transcripts/cli-main.ts",
        "record",
        "--out",
        out,
        "--fake-model",
        scriptFile,
        "--",
        ...command,
      ],
      {
        cwd: repo,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const workspace = await new Promise<string>((resolve, reject) => {
      let err = "";
      child.stderr.on("data", (c: Buffer) => {
        err += c.toString();
        const m = /workspace (\S+) \(the session's cwd\)/.exec(err);
        if (m) resolve(m[1]!);
      });
      void exit.then(() => reject(new Error(`record exited before it started:\n${err}`)));
    });
    // The client reads the agent through `toClient`; the agent's stdout is read on once the client
    // is done, so what the agent sends after its answer (Zed's adapter: a command list) still
    // reaches the recording, which takes the agent's output until the agent exits.
    const toClient = new PassThrough();
    child.stdout.on("data", (chunk: Buffer) => void (toClient.destroyed || toClient.write(chunk)));
    child.stdout.on("end", () => void (toClient.destroyed || toClient.end()));
    await acp
      .client({ name: "record-session" })
      .onNotification(acp.methods.client.session.update, () => undefined)
      .connectWith(
        acp.ndJsonStream(
          Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
          Readable.toWeb(toClient) as ReadableStream<Uint8Array>,
        ),
        async (ctx) => {
          await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
          const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
          const res = await ctx.request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: "text", text: "hi" }],
          });
          if (res.stopReason !== "end_turn") throw new Error(`stopReason ${res.stopReason}`);
        },
      );
    child.stdin.end();
    // An agent that does not exit on EOF is stopped, what it sent late recorded by then.
    const timer = setTimeout(() => child.kill("SIGTERM"), 5000);
    await exit;
    clearTimeout(timer);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
