// A `record --fake-model` recording replays anywhere (issue 51, item 7): an editor records in its
// own project folder (not the fresh workspace `record` names), with a further root
// (additionalDirectories); the transcript keeps those folders as placeholders, and once they are
// deleted it replays green from another folder, each replay in fresh folders of its own.
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runProcess, type ProcessResult } from "../support/run-process.js";

const repo = path.resolve(import.meta.dirname, "../..");
/** The shipped bin, by absolute path: it runs from any folder, as a user's would. */
const BIN = path.join(repo, "dist/index.js");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "transcript-anywhere-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function run(args: string[], cwd: string): Promise<ProcessResult> {
  return runProcess(process.execPath, [BIN, ...args], { cwd });
}

it("a --fake-model recording made in the editor's own folders replays green from another folder after they are gone", async () => {
  const project = path.join(dir, "project");
  const shared = path.join(dir, "shared-lib");
  await mkdir(project);
  await mkdir(shared);
  await writeFile(path.join(project, "notes.txt"), "notes\n");
  const script = path.join(dir, "script.json");
  await writeFile(
    script,
    JSON.stringify({
      responses: [{ items: [{ type: "message", text: "Recorded in the editor's folder.", deltas: 2 }] }],
    }),
  );
  const out = path.join(dir, "session.jsonl");

  // The editor starts `record` in its project, as its agent command, and opens the session there.
  const child = spawn(
    process.execPath,
    [BIN, "record", "--out", out, "--fake-model", script, "--", process.execPath, BIN],
    { cwd: project, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  await acp
    .client({ name: "editor" })
    .onNotification(acp.methods.client.session.update, () => undefined)
    .connectWith(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
      async (ctx) => {
        await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
          cwd: project,
          additionalDirectories: [shared],
          mcpServers: [],
        });
        // Paths inside the folders, as links after a text of over 80 characters: the session's title
        // is the prompt cut at 80, which must not cut a path (paths of another length cut elsewhere).
        const res = await ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [
            {
              type: "text",
              text: "Please look at the notes in the project and at the shared library, then tell me what they say.",
            },
            { type: "resource_link", uri: `file://${path.join(project, "notes.txt")}`, name: "notes.txt" },
            { type: "resource_link", uri: `file://${path.join(shared, "lib.ts")}`, name: "lib.ts" },
          ],
        });
        expect(res.stopReason).toBe("end_turn");
      },
    );
  child.stdin.end();
  expect(await exit, stderr).toBe(0);

  const recorded = await readFile(out, "utf8");
  // No trace of the recording's folders: they are placeholders.
  expect(recorded).not.toContain(dir);
  expect(recorded).toContain('"cwd":"<CWD>"');
  expect(recorded).toContain('"additionalDirectories":["<DIR_1>"]');
  expect(recorded).toContain('"uri":"file://<CWD>/notes.txt"');
  expect(recorded).toContain('"uri":"file://<DIR_1>/lib.ts"');

  // The recording's folders are gone; the replay runs from a folder of its own.
  await rm(project, { recursive: true, force: true });
  await rm(shared, { recursive: true, force: true });
  const elsewhere = path.join(dir, "elsewhere");
  await mkdir(elsewhere);
  const replay = await run(["replay", "--trust", out], elsewhere);
  expect(replay.stdout, replay.stderr).toMatch(/^PASS /);
  expect(replay.code).toBe(0);
}, 120_000);
