// --help as a user meets it: it fits a terminal, its Zed entry is valid JSON with this
// installation's absolute paths, its synopsis works when followed literally, and it lists every
// environment variable docs/configuration.md's table lists.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENVIRONMENT } from "../../src/config/index.js";
import { helpText } from "../../src/help.js";
import { MODES } from "../../src/core/session/modes.js";
import { parseReplayArgs } from "../../tools/transcripts/cli.js";
import { authMethods } from "../../src/sign-in/methods.js";
import { LOGIN_USAGE, parseLoginArgs } from "../../src/sign-in/terminal-login.js";

const text = helpText("/opt/node/bin/node", "/home/me/codex-cli-acp/dist/index.js");

describe("--help", () => {
  it("fits 100 columns", () => {
    for (const line of text.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
  });
  it("gives a Zed entry that is valid JSON with absolute paths and a default mode", () => {
    const start = text.indexOf('  "agent_servers"');
    const end = text.indexOf("\n  default_config_options sets");
    const zed = JSON.parse(`{${text.slice(start, end)}}`) as {
      agent_servers: Record<
        string,
        { command: string; args: string[]; default_config_options: Record<string, string> }
      >;
    };
    expect(zed.agent_servers["Codex CLI"]).toMatchObject({
      command: "/opt/node/bin/node",
      args: ["/home/me/codex-cli-acp/dist/index.js"],
      default_config_options: { mode: "auto" },
    });
    expect(text).toContain('"command": "npx", "args": ["-y", "codex-cli-acp"]');
  });
  it("names every mode a session offers as a value of default_config_options' mode", () => {
    // Written out in help.ts (the bin must not load the agent's core for --help): this keeps them in step.
    const said = text.slice(text.indexOf('"mode" ('), text.indexOf(', "model"')).replace(/\s+/g, " ");
    for (const mode of MODES) expect(said, mode.id).toContain(mode.id);
  });
  it("a replay line written as the synopsis shows it parses", () => {
    expect(
      parseReplayArgs([
        "--trust",
        "--update",
        "--timeout",
        "5",
        "--stop-after-eof",
        "2",
        "a.jsonl",
        "b.jsonl",
        "--agent",
        "--",
        "node",
        "x.js",
      ]),
    ).toEqual({
      files: ["a.jsonl", "b.jsonl"],
      update: true,
      trust: true,
      timeoutMs: 5000,
      stopAfterEofMs: 2000,
      agentCommand: ["node", "x.js"],
    });
  });
  it("lists every environment variable, as docs/configuration.md's table does", () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/configuration.md"), "utf8");
    for (const [name] of ENVIRONMENT) {
      expect(text).toContain(name);
      for (const one of name.split(" / ")) expect(doc, one).toContain(`\`${one}\``);
    }
  });
});

describe("login's arguments", () => {
  it("what the editor's terminal sign-in methods run is a login this command takes", () => {
    const terminal = authMethods({ auth: { terminal: true } }, {}).flatMap((m) =>
      "args" in m && m.args ? [m.args] : [],
    );
    expect(terminal.length).toBeGreaterThan(0);
    for (const [sub, ...args] of terminal) {
      expect(sub).toBe("login");
      expect(parseLoginArgs(args)).toEqual({ codexArgs: ["login", ...args] });
    }
  });
  it("every way the synopses name is taken, and the bin's --help names the same ones", () => {
    const synopsis = /codex-cli-acp login \[([^\]]+)\]/;
    const ways = synopsis.exec(LOGIN_USAGE)![1]!.split(" | ");
    expect(synopsis.exec(text)![1]).toBe(ways.join(" | "));
    for (const way of ways) expect(parseLoginArgs([way])).toEqual({ codexArgs: ["login", way] });
    expect(parseLoginArgs([])).toEqual({ codexArgs: ["login"] });
  });
  it("anything else is a usage error of ours; --help wins", () => {
    expect(parseLoginArgs(["--bogus"])).toEqual({ error: 'login: unknown argument "--bogus"' });
    expect(parseLoginArgs(["--device-auth", "--with-api-key"])).toMatchObject({
      error: expect.stringContaining("one way"),
    });
    expect(parseLoginArgs(["--bogus", "-h"])).toEqual({ help: true });
  });
});
