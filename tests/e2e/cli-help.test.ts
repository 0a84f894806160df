// Issue 49, item 9: the bin's subcommands each answer --help (-h) with their own usage, on stdout,
// exit 0; a wrong argument of `login` is our usage error (stderr, exit 2), not the bundled codex's.
// The shipped bin (dist/index.js), as a user runs it.
import { describe, expect, it } from "vitest";
import { DIST_BIN } from "../support/adapter.js";
import { runProcess, type ProcessResult } from "../support/run-process.js";

/** No codex to find: a subcommand's help or usage error must not start one. */
function runBin(args: string[]): Promise<ProcessResult> {
  return runProcess(process.execPath, [DIST_BIN, ...args], {
    env: { ...process.env, CODEX_PATH: "/nonexistent/codex" },
  });
}

describe("a subcommand's own help", () => {
  for (const sub of ["record", "replay", "login"]) {
    for (const flag of ["--help", "-h"]) {
      it(`${sub} ${flag}: its usage on stdout, exit 0`, async () => {
        const { code, stdout, stderr } = await runBin([sub, flag]);
        expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
        expect(stdout).toContain(`codex-cli-acp ${sub} `);
        // Its own usage, not another subcommand's.
        for (const other of ["record", "replay", "login"].filter((o) => o !== sub))
          expect(stdout).not.toContain(`codex-cli-acp ${other} `);
      });
    }
  }

  it("record's --help after `--` belongs to the agent command: not ours", async () => {
    const { code, stdout } = await runBin(["record", "--", "agent", "--help"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
  });
});

describe("login's wrong arguments", () => {
  it("login --bogus: our usage error on stderr, exit 2, not codex's usage", async () => {
    const { code, stdout, stderr } = await runBin(["login", "--bogus"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain('codex-cli-acp: login: unknown argument "--bogus"');
    expect(stderr).toContain("codex-cli-acp login [");
    expect(stderr).not.toContain("codex login");
  });

  it("login with no codex to run (CODEX_PATH names nothing): one line saying so, exit 1, no stack trace", async () => {
    const { code, stderr } = await runBin(["login", "--device-auth"]);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("codex-cli-acp: cannot run codex: CODEX_PATH does not exist: /nonexistent/codex");
  });

  it("login with two ways at once: our usage error, exit 2", async () => {
    const { code, stderr } = await runBin(["login", "--device-auth", "--with-api-key"]);
    expect(code).toBe(2);
    expect(stderr).toContain("codex-cli-acp login [");
  });
});
