// Spawns `codex app-server` (no shell). Kept free of heavy imports on purpose: the
// bin calls it before loading anything else, so codex boots while the ACP side loads.
// (We use node:child_process rather than execa here: execa's import alone delayed the
// spawn by ~45 ms and cost ~3 MB of RSS, and none of its features are needed for a
// long-lived stdio child; measured with scripts/bench.)
import { spawn, type ChildProcess } from "node:child_process";
import { batchFileLaunch, type Launch } from "../platform/index.js";
import type { CodexCommand } from "./locate.js";
import { configReadParams } from "./config-files.js";

/**
 * How to run `command` with `args`: the file itself, or for a Windows batch file cmd.exe with
 * every argument escaped (src/platform/windows-command.ts; throws for an argument cmd.exe cannot
 * carry). Every start of codex goes through here: app-server, `debug models`, `login`.
 */
export function codexLaunch(command: CodexCommand, args: readonly string[], env: NodeJS.ProcessEnv): Launch {
  const all = [...command.args, ...args];
  if (!command.batch) return { file: command.file, args: all };
  // Windows names variables case-insensitively; a copied environment is a plain object.
  const comspec = Object.entries(env).find(([name]) => name.toLowerCase() === "comspec")?.[1];
  return batchFileLaunch(command.file, all, comspec || "cmd.exe");
}

/** Node's spawn options for `launch`: verbatim arguments only for cmd.exe's line. */
export function launchOptions(launch: Launch): { windowsVerbatimArguments?: boolean } {
  return launch.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {};
}

export function spawnAppServer(
  command: CodexCommand,
  opts: { args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): ChildProcess {
  const env = opts.env ?? process.env;
  const launch = codexLaunch(command, ["app-server", ...(opts.args ?? [])], env);
  return spawn(launch.file, launch.args, {
    stdio: ["pipe", "pipe", "pipe"],
    env,
    cwd: opts.cwd,
    windowsHide: true,
    shell: false,
    ...launchOptions(launch),
  });
}

/** What the adapter tells codex it is, in `initialize`. */
export type CodexClientInfo = { name: string; title: string; version: string };

/** The params of the app-server's `initialize`: one source for the early one and a restart's. */
export function initializeParams(clientInfo: CodexClientInfo): {
  clientInfo: CodexClientInfo;
  capabilities: { experimentalApi: true };
} {
  return { clientInfo, capabilities: { experimentalApi: true } };
}

/** A folder whose configuration the bin asked codex for as it spawned it, and the state of its files then (config-files.ts). */
export type EarlyConfigRead = { cwd: string; fingerprint: string };

/** A codex the bin started, with the ids of the `initialize` (and `config/read`) already written to it. */
export type PrestartedCodex = {
  child: ChildProcess;
  command: CodexCommand;
  initializeId: number;
  configRead?: EarlyConfigRead & { id: number };
};

/**
 * The id of the `initialize` written as codex is spawned; the client's own ids start at 1. Its
 * answer waits in the pipe until the client that adopts the child reads it (CodexHost).
 */
const EARLY_INITIALIZE_ID = 0;
/** The early `config/read`'s id: below the client's own, like the initialize's. */
const EARLY_CONFIG_READ_ID = -1;

/**
 * Spawns app-server and writes its `initialize` at once, so codex reads its configuration and
 * sign-in while the adapter loads: sent by the client once loaded, initialize was answered ~35 ms
 * after the agent was (bench timeline, "codex initialized"), and the first session/new waited on it.
 */
export function prestartAppServer(
  command: CodexCommand,
  clientInfo: CodexClientInfo,
  opts: { args?: string[]; env?: NodeJS.ProcessEnv; configFor?: () => EarlyConfigRead | undefined } = {},
): PrestartedCodex {
  const child = spawnAppServer(command, opts);
  // A codex that is gone before the client adopts it: the client's own handlers report it.
  child.stdin?.once("error", () => undefined);
  child.stdin?.write(
    `${JSON.stringify({ id: EARLY_INITIALIZE_ID, method: "initialize", params: initializeParams(clientInfo) })}\n`,
  );
  // Asked for only now (its files looked at), so nothing holds the spawn back.
  const configFor = opts.configFor?.();
  if (!configFor) return { child, command, initializeId: EARLY_INITIALIZE_ID };
  // The first session/new's first question to codex (the modes feature's), for the folder an editor
  // starts the agent in: answered right behind initialize instead of a round trip after it.
  child.stdin?.write(
    `${JSON.stringify({ id: EARLY_CONFIG_READ_ID, method: "config/read", params: configReadParams(configFor.cwd) })}\n`,
  );
  return { child, command, initializeId: EARLY_INITIALIZE_ID, configRead: { id: EARLY_CONFIG_READ_ID, ...configFor } };
}
