// `codex-cli-acp login`: signs in with the Codex bundled with this agent (not whatever `codex` is on
// PATH), in this terminal, with its own prompts: what the editor's "Sign in in a terminal" methods
// run (methods.ts). Its arguments are ours, checked here: a wrong one is our usage error, not the
// bundled codex's usage, which names another command and options this one does not take.
import { spawn } from "node:child_process";
import { locateCodex } from "../codex/locate.js";
import { codexLaunch, launchOptions } from "../codex/spawn.js";

export const LOGIN_USAGE = `Usage:
  codex-cli-acp login [--device-auth | --with-api-key | --with-access-token | status]
      Sign in with the Codex bundled with this agent, in this terminal (what the editor's
      "Sign in in a terminal" runs): ChatGPT in the browser by default; --device-auth with a
      one-time code entered on any device (SSH, containers); --with-api-key and
      --with-access-token read the key or token from stdin. status says how you are signed in.
      The sign-in is kept in CODEX_HOME (default ~/.codex), where the agent finds it.

Exit code: Codex's (2: a usage error).
`;

/** What the arguments after `login` ask for: this usage, a usage error, or Codex's login with these arguments. */
export type LoginArgs = { help: true } | { error: string } | { codexArgs: string[] };

/** The ways to sign in, one at most. */
const WAYS: ReadonlySet<string> = new Set(["--device-auth", "--with-api-key", "--with-access-token", "status"]);

export function parseLoginArgs(args: readonly string[]): LoginArgs {
  if (args.some((a) => a === "--help" || a === "-h")) return { help: true };
  const unknown = args.find((a) => !WAYS.has(a));
  if (unknown !== undefined) return { error: `login: unknown argument ${JSON.stringify(unknown)}` };
  if (args.length > 1) return { error: `login: one way to sign in at a time (${args.join(" ")})` };
  return { codexArgs: ["login", ...args] };
}

/**
 * Runs `codex-cli-acp login ARGS`; resolves with the exit code. `printUsage` is the bin's: only it
 * writes the terminal's stdout (in the agent, stdout carries ACP).
 */
export async function runLogin(args: readonly string[], printUsage: (text: string) => void): Promise<number> {
  const parsed = parseLoginArgs(args);
  if ("help" in parsed) {
    printUsage(LOGIN_USAGE);
    return 0;
  }
  if ("error" in parsed) {
    process.stderr.write(`codex-cli-acp: ${parsed.error}\n\n${LOGIN_USAGE}`);
    return 2;
  }
  let codex: ReturnType<typeof locateCodex>;
  try {
    codex = locateCodex();
  } catch (err) {
    // No codex to run (a CODEX_PATH that is not there): say so in one line, not a stack trace.
    process.stderr.write(`codex-cli-acp: cannot run codex: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const launch = codexLaunch(codex, parsed.codexArgs, process.env);
  const child = spawn(launch.file, launch.args, { stdio: "inherit", ...launchOptions(launch) });
  return new Promise<number>((resolve) => {
    child.on("error", (err) => {
      process.stderr.write(`codex-cli-acp: cannot run codex: ${err.message}\n`);
      resolve(1);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
