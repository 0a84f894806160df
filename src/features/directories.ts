// Multi-root workspaces: the client's `additionalDirectories` (session/new, load, resume) become
// workspace roots, for the file tools' write rule (no prompt inside them in `auto`) and as
// writable roots of Codex's sandbox (turn/start's workspace-write policy lists them).
import { realpath, stat } from "node:fs/promises";
import { isSystemPath } from "../editor-files/access/index.js";
import path from "node:path";
import { invalidParams } from "../core/index.js";
import type { SessionFeature, SessionOpening } from "../core/index.js";
import { sandboxPolicyOf } from "../core/index.js";

/** The request's additional directories, checked: absolute paths of existing directories. */
async function additionalDirectories(opening: SessionOpening): Promise<string[]> {
  const requested = "additionalDirectories" in opening.request ? (opening.request.additionalDirectories ?? []) : [];
  const out: string[] = [];
  for (const [i, dir] of requested.entries()) {
    if (!path.isAbsolute(dir))
      throw invalidParams(
        { additionalDirectories: dir },
        `additionalDirectories[${i}] must be an absolute path: ${dir}`,
      );
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory())
      throw invalidParams(
        { additionalDirectories: dir },
        `additionalDirectories[${i}] is not an existing directory: ${dir}`,
      );
    // A root makes its whole tree writable without asking: not the file system's root or a system tree.
    const normal = await realpath(dir);
    // (isSystemPath says whether a path is a system view: /proc, /sys, /dev, a Windows device; a child tells for the tree itself.)
    if (normal === path.parse(normal).root || isSystemPath(path.join(normal, "entry"))) {
      throw invalidParams(
        { additionalDirectories: dir },
        `additionalDirectories[${i}] cannot be a workspace root (the whole disk or a system directory): ${dir}`,
      );
    }
    if (normal !== opening.settings.cwd && !out.includes(normal)) out.push(normal);
  }
  return out;
}

export function directoriesFeature(): SessionFeature {
  const pending = new WeakMap<SessionOpening, string[]>();
  return {
    name: "directories",
    async prepare(opening) {
      pending.set(opening, await additionalDirectories(opening));
    },
    abandon(opening) {
      pending.delete(opening);
    },
    attach(session, opening, services) {
      const extra = pending.get(opening) ?? [];
      pending.delete(opening);
      if (extra.length === 0) return;
      const roots = [session.cwd, ...extra];
      // Codex's sandbox follows the mode; in a workspace-write one, the extra roots are writable.
      const sandbox = session.settings.sandbox;
      session.update({
        roots,
        ...(sandbox === "workspace-write"
          ? { settings: { sandboxPolicy: sandboxPolicyOf(sandbox, roots, session.settings.workspaceWrite) } }
          : {}),
      });
      services.log.info({ sessionId: session.id, roots: roots.length }, "additional directories are workspace roots");
    },
  };
}
