// The transcript runner on an ACP v2 (draft) session, end to end: a real v2 SDK client records
// a session with the v2 echo agent through `record`, the recording replays green against that
// agent (whose session, message and tool call ids differ in every run), and an edited recording,
// or a v1-only agent, fails the replay.
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTranscript, type TranscriptEntry } from "../../tools/transcripts/format.js";
import { formatReplayReport, replayTranscript } from "../../tools/transcripts/replay/index.js";

const repo = path.resolve(import.meta.dirname, "../..");
const V2_AGENT = ["node", "--import", "tsx", "tests/support/v2-echo-agent.ts"];
const V1_AGENT = ["node", "--import", "tsx", "tests/support/echo-agent.ts"];
const CLI = [process.execPath, "--import", "tsx", "tools/transcripts/cli-main.ts"];

type Json = Record<string, unknown>;
let dir: string;
let recording: string;
const seen = { texts: [] as string[], idles: 0, permissions: 0 };

/** Resolves on the session's next idle state snapshot (a v2 turn ends with one, not with the prompt's response). */
function idleWaiter(): { next(): Promise<void>; onUpdate(update: acp.SessionUpdate): void } {
  let waiting: Array<() => void> = [];
  return {
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
    onUpdate(update) {
      if (update.sessionUpdate !== "state_update" || update.state !== "idle") return;
      const resolved = waiting;
      waiting = [];
      for (const r of resolved) r();
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "transcript-v2-"));
  const workspace = path.join(dir, "project");
  await mkdir(workspace);
  recording = path.join(dir, "v2.jsonl");
  const child = spawn(CLI[0]!, [...CLI.slice(1), "record", "--out", recording, "--", ...V2_AGENT], {
    cwd: repo,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const idle = idleWaiter();
  await acp
    .client({ name: "transcript-v2-test-client" })
    .onRequest(acp.methods.client.session.requestPermission, () => {
      seen.permissions++;
      return { outcome: { outcome: "selected", optionId: "allow" } };
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const u = params.update;
      // v2's catch-all variants keep the discriminators from narrowing; the SDK parsed it as a text chunk.
      const content =
        u.sessionUpdate === "agent_message_chunk" ? (u.content as { type: string; text?: string }) : undefined;
      if (content?.type === "text" && content.text !== undefined) seen.texts.push(content.text);
      if (u.sessionUpdate === "state_update" && u.state === "idle") seen.idles++;
      idle.onUpdate(u);
    })
    .connectWith(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
      async (ctx) => {
        await ctx.request(acp.methods.agent.initialize, {
          protocolVersion: 2,
          info: { name: "transcript-v2-test-client", version: "1.0.0" },
          capabilities: {},
        });
        const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: workspace });
        for (const text of ["hi", "ask"]) {
          const turnEnded = idle.next();
          await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
          await turnEnded;
        }
        await ctx.request(acp.methods.agent.session.close, { sessionId });
      },
    );
  child.stdin.end();
  expect(await exit).toBe(0);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function editedCopy(name: string, edit: (entries: TranscriptEntry[]) => void): Promise<string> {
  const t = parseTranscript(await readFile(recording, "utf8"), recording);
  edit(t.entries);
  const file = path.join(dir, name);
  await writeFile(
    file,
    [JSON.stringify(t.header), ...t.entries.map(({ line: _l, ...e }) => JSON.stringify(e))].join("\n") + "\n",
  );
  return file;
}

const updatesOf = (entries: TranscriptEntry[]): Json[] =>
  entries.flatMap((e) =>
    e.type === "message" && e.dir === "agent->client" && e.msg.method === "session/update"
      ? [(e.msg.params as { update: Json }).update]
      : [],
  );

describe("recording a v2 session", () => {
  it("writes the v2 handshake, message ids and state snapshots the client saw", async () => {
    expect(seen.texts.join("")).toBe("echo: hiecho: ask permission: allow");
    expect(seen).toMatchObject({ idles: 2, permissions: 1 });
    const t = parseTranscript(await readFile(recording, "utf8"), recording);
    expect(t.header.protocolVersion).toBe(2);
    expect(t.header.clientCapabilities).toEqual({});
    const updates = updatesOf(t.entries);
    expect(
      updates.filter((u) => u.sessionUpdate === "agent_message_chunk").every((u) => typeof u.messageId === "string"),
    ).toBe(true);
    expect(updates.filter((u) => u.sessionUpdate === "state_update").map((u) => u.state)).toEqual([
      "running",
      "idle",
      "running",
      "requires_action",
      "running",
      "idle",
    ]);
  });
});

describe("replaying a v2 session", () => {
  it("passes against the agent it was recorded from, whose ids differ in every run", async () => {
    const result = await replayTranscript(recording, { agentCommand: V2_AGENT });
    expect(result.mismatches, formatReplayReport(result)).toEqual([]);
    expect(result.ok).toBe(true);
  }, 60_000);

  it("fails an edited chunk at its JSON path", async () => {
    const edited = await editedCopy("edited.jsonl", (entries) => {
      const chunk = updatesOf(entries).find(
        (u) => u.sessionUpdate === "agent_message_chunk" && (u.content as { text: string }).text === "hi",
      );
      (chunk!.content as { text: string }).text = "bye";
    });
    const result = await replayTranscript(edited, { agentCommand: V2_AGENT });
    expect(result.ok).toBe(false);
    expect(result.mismatches[0]).toMatchObject({
      kind: "difference",
      path: "$.params.update.content.text",
      expected: "bye",
      actual: "hi",
    });
  }, 60_000);

  it("fails a chunk moved to another message id", async () => {
    const edited = await editedCopy("moved.jsonl", (entries) => {
      const chunk = updatesOf(entries).find(
        (u) => u.sessionUpdate === "agent_message_chunk" && (u.content as { text: string }).text === "hi",
      );
      chunk!.messageId = "another-message";
    });
    const result = await replayTranscript(edited, { agentCommand: V2_AGENT });
    expect(result.ok).toBe(false);
    expect(result.mismatches[0]).toMatchObject({
      kind: "difference",
      path: "$.params.update.messageId",
      expected: "another-message",
    });
  }, 60_000);

  it("fails against a v1-only agent, which negotiates version 1", async () => {
    // The handshake alone: the rest would only wait for what a v1 agent never sends.
    const handshake = await editedCopy("handshake.jsonl", (entries) => entries.splice(2));
    const result = await replayTranscript(handshake, { agentCommand: V1_AGENT });
    expect(result.ok).toBe(false);
    expect(result.mismatches[0]).toMatchObject({
      kind: "difference",
      path: "$.result.protocolVersion",
      expected: 2,
      actual: 1,
    });
  }, 60_000);
});
