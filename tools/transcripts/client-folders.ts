// The folders an ACP client names for its sessions (a session's `cwd`, its `additionalDirectories`),
// as placeholders: a recording does not depend on the recording machine's folders, and a replay
// gives each one a fresh folder of its own (replay/sandbox.ts). The first session's cwd is
// `<CWD>` (the replay's workspace); any other folder outside the known ones is `<DIR_1>`,
// `<DIR_2>`, ... (fresh folders beside it); a folder inside a known one (`<CWD>/sub`) is created
// there. The header's `workspace.directories` lists what a replay must create.
import { realpathSync } from "node:fs";
import path from "node:path";
import { pathsToPlaceholders, type Placeholders } from "./normalise.js";

/** The requests whose `cwd` / `additionalDirectories` name the session's folders (v1 and v2). */
const OPENING_METHODS: ReadonlySet<string> = new Set(["session/new", "session/load", "session/resume", "session/fork"]);

/** The placeholder of an additional folder: a fresh folder beside the replay's workspace. */
export const EXTRA_FOLDER = /^<DIR_([1-9]\d{0,3})>$/;

/** The folders a client message names for a session, cwd first; none for other messages. */
export function foldersOf(msg: Record<string, unknown>): string[] {
  if (typeof msg.method !== "string" || !OPENING_METHODS.has(msg.method)) return [];
  const params = msg.params !== null && typeof msg.params === "object" ? (msg.params as Record<string, unknown>) : {};
  const extra: unknown[] = Array.isArray(params.additionalDirectories) ? params.additionalDirectories : [];
  return [params.cwd, ...extra].filter(
    (f): f is string => typeof f === "string" && path.isAbsolute(f) && path.parse(f).root !== f,
  );
}

export class ClientFolders {
  /** Every placeholder of the run: the recorder's own (a fake-model run's) and the client's folders. */
  readonly placeholders: Placeholders;
  /** The client's folders by placeholder, as it named them (a recording's `header.paths`). */
  readonly named: Record<string, string> = {};
  /** What a replay creates: `<DIR_n>` folders and folders inside a placeholder's (`<CWD>/sub`). */
  readonly directories: string[] = [];
  private cwdSeen = false;

  /** `own`: the recorder's placeholders (with `--fake-model`, its fresh workspace is `<CWD>`). */
  constructor(own: Placeholders = {}) {
    this.placeholders = { ...own };
  }

  /** Learns the folders a client message names. */
  learn(msg: Record<string, unknown>): void {
    for (const folder of foldersOf(msg)) this.learnFolder(folder);
  }

  private learnFolder(folder: string): void {
    const trimmed = folder.replace(/[\\/]+$/, "");
    const portable = pathsToPlaceholders(trimmed, this.placeholders) as string;
    const isFirstCwd = !this.cwdSeen;
    this.cwdSeen = true;
    if (portable.startsWith("<")) {
      // Known already: the placeholder itself, or a folder inside one, which a replay creates.
      if (!/^<[A-Z_0-9]+>$/.test(portable) && !this.directories.includes(portable)) this.directories.push(portable);
      return;
    }
    const variants = [trimmed];
    try {
      const real = realpathSync.native(trimmed);
      if (real !== trimmed) variants.push(real);
    } catch {
      // Not there (any more): the path as sent is what the messages carry.
    }
    if (isFirstCwd) {
      // With --fake-model the recorder's fresh workspace is <CWD> too: both become the replay's workspace.
      const own = this.placeholders["<CWD>"];
      this.placeholders["<CWD>"] = [...variants, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
      this.named["<CWD>"] = trimmed;
      return;
    }
    const name = `<DIR_${Object.keys(this.placeholders).filter((k) => EXTRA_FOLDER.test(k)).length + 1}>`;
    this.placeholders[name] = variants;
    this.named[name] = trimmed;
    this.directories.push(name);
  }
}
