// The account as the agent knows it (src/sign-in/credentials.ts) is read again after the agent
// signs out itself, without waiting for Codex's account/updated, which may come after
// account/logout's answer: a session/new in between found the old account (a flaky e2e showed it).
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { CodexHost, type v2 } from "../../src/codex/index.js";
import { FakeCodexClient, type Partly } from "../support/fake-codex-client.js";
import { CredentialCheck } from "../../src/sign-in/credentials.js";

describe("CredentialCheck after this agent's own sign-out", () => {
  it("reads Codex's account again once the host says the account changed, and tells its listeners", async () => {
    const log = pino({ level: "silent" });
    const host = new CodexHost({ clientInfo: { name: "t", title: "t", version: "1" } }, log);
    let reads = 0;
    const accounts: Array<Partly<v2.GetAccountResponse>> = [
      { account: { type: "apiKey" }, requiresOpenaiAuth: true },
      { account: null, requiresOpenaiAuth: true },
    ];
    const codex = new FakeCodexClient({ answers: { "account/read": () => accounts[Math.min(reads++, 1)]! } });
    Object.assign(host, { client: async () => codex.client });
    const check = new CredentialCheck(host, log);
    let told = 0;
    check.onChange(() => void told++);
    expect((await check.state()).account?.account).toEqual({ type: "apiKey" });
    expect((await check.state()).account?.account).toEqual({ type: "apiKey" }); // kept: read once
    host.accountChanged();
    expect(told).toBe(1);
    expect((await check.state()).account?.account).toBeNull();
    expect(reads).toBe(2);
  });
});
