// session/new checks the sign-in while the features prepare the thread (issue 30: the account
// read and Codex's config/read overlap instead of adding up), yet a refused sign-in still wins:
// it is the answer, and what the features took is released.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { CodexHost } from "../../src/codex/index.js";
import { createAgent, DEFAULT_SETTINGS } from "../../src/core/agent.js";
import { RequestError } from "../../src/core/errors.js";
import type { SessionFeature, SessionOpening } from "../../src/core/feature-api.js";

/** What createAgent touches of the host before a thread is started; a thread start fails loudly. */
const host = {
  setBusyCheck: () => undefined,
  onExit: () => () => undefined,
  client: () => Promise.reject(new Error("no codex in this test")),
  currentGeneration: 0,
} as unknown as CodexHost;

function recordingFeature(events: string[], prepare: () => void | Promise<void> = () => undefined): SessionFeature {
  return {
    name: "recording",
    prepare: async () => {
      events.push("prepare");
      await prepare();
    },
    abandon: () => void events.push("abandon"),
  };
}

const opening = (): SessionOpening => ({
  kind: "new",
  request: { cwd: "/w", mcpServers: [] },
  settings: { cwd: "/w", ...DEFAULT_SETTINGS },
  key: "k",
});
const authRequired = () => new RequestError(-32000, "Authentication required");

describe("opening a session while the sign-in is checked", () => {
  it("prepares the thread before the sign-in check has answered", async () => {
    const events: string[] = [];
    const agent = createAgent({ host, log: pino({ level: "silent" }), features: [recordingFeature(events)] });
    let admit!: () => void;
    const admitted = new Promise<void>((resolve) => (admit = resolve));
    const opened = agent.openSession(opening(), undefined, admitted);
    opened.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events).toEqual(["prepare"]);
    admit();
    // Then the thread is started (here: no codex, so the opening fails and is released).
    await expect(opened).rejects.toThrow(/no codex in this test/);
    expect(events).toEqual(["prepare", "abandon"]);
  });

  it("answers a refused sign-in, and releases what the features took", async () => {
    const events: string[] = [];
    const agent = createAgent({ host, log: pino({ level: "silent" }), features: [recordingFeature(events)] });
    await expect(agent.openSession(opening(), undefined, Promise.reject(authRequired()))).rejects.toMatchObject({
      code: -32000,
    });
    expect(events).toEqual(["prepare", "abandon"]);
  });

  it("answers a refused sign-in before a feature's refusal (as when the sign-in was checked first)", async () => {
    const events: string[] = [];
    const refusing = recordingFeature(events, () => {
      throw RequestError.invalidParams({ systemPrompt: 1 }, "Invalid systemPrompt");
    });
    const agent = createAgent({ host, log: pino({ level: "silent" }), features: [refusing] });
    await expect(agent.openSession(opening(), undefined, Promise.reject(authRequired()))).rejects.toMatchObject({
      code: -32000,
    });
    expect(events).toEqual(["prepare", "abandon"]);
  });
});
