// A codex other than the pinned one (CODEX_PATH): what it lacks is learnt from its answers, not
// assumed from its version. Real codex; a method it does not know stands for one a codex of
// another version lacks.
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CodexHost, CodexMethodUnsupportedError } from "../../src/codex/index.js";
import { createCodexHome, type CodexHome } from "../support/codex-home.js";

let home: CodexHome;
let host: CodexHost;
beforeAll(async () => {
  home = await createCodexHome({ modelUrl: "http://127.0.0.1:9/v1" });
  host = new CodexHost(
    { clientInfo: { name: "t", title: "t", version: "1" }, env: { ...process.env, ...home.env } },
    pino({ level: "silent" }),
  );
  host.start();
});
afterAll(async () => {
  await host.close();
  await home.cleanup();
});

it("a method codex answers as unknown is a clear error naming it, remembered: not asked again", async () => {
  const client = await host.client();
  const first = await client.request("thread/notAMethod", {}).catch((err: unknown) => err);
  expect(first).toBeInstanceOf(CodexMethodUnsupportedError);
  expect(String(first)).toMatch(/this codex \(0\.\d+\.\d+\) does not offer thread\/notAMethod/);
  expect(client.lacks("thread/notAMethod")).toBe(true);
  const sentBefore = client.pendingCount;
  const second = client.request("thread/notAMethod", {});
  expect(client.pendingCount).toBe(sentBefore);
  await expect(second).rejects.toBeInstanceOf(CodexMethodUnsupportedError);
  // A method it knows, refused for its params, is not taken for a missing one.
  await expect(
    client.request("thread/read", { threadId: "00000000-0000-0000-0000-000000000000" }),
  ).rejects.not.toBeInstanceOf(CodexMethodUnsupportedError);
  expect(client.lacks("thread/read")).toBe(false);
});
