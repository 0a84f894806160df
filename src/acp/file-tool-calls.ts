// Which app-server item a file-tool call belongs to. The MCP request carries no item id, but
// Codex announces the item (item/started, with the tool and its arguments) before it calls the
// tool, so a call is matched to the first unclaimed in-flight item of the same tool with the same
// arguments. A permission prompt then names the tool call the editor already shows.
import { FILE_TOOLS_SERVER } from "../tool-contract/index.js";

/** How long a call waits for its item (Codex's item/started racing the MCP request). */
const ITEM_WAIT_MS = 1000;

type InFlight = { tool: string; args: string; claimed: boolean };

export class FileToolCalls {
  private readonly inFlight = new Map<string, InFlight>();
  /** Pending itemIdOf calls: `giveUp` true resolves them with undefined at once. */
  private readonly waiters = new Set<(giveUp: boolean) => void>();

  /** Feed every thread notification of the session. */
  observe(method: string, params: Record<string, unknown>): void {
    if (method !== "item/started" && method !== "item/completed") return;
    const item = params.item as { type?: unknown; id?: unknown; server?: unknown; tool?: unknown; arguments?: unknown } | undefined;
    if (!item || item.type !== "mcpToolCall" || item.server !== FILE_TOOLS_SERVER || typeof item.id !== "string" || typeof item.tool !== "string") return;
    if (method === "item/completed") {
      this.inFlight.delete(item.id);
      return;
    }
    this.inFlight.set(item.id, { tool: item.tool, args: canonical(parseArgs(item.arguments)), claimed: false });
    for (const wake of [...this.waiters]) wake(false);
  }

  /** The item id of `call` ({tool, args} as the MCP request had them), if it can be told within a second. */
  itemIdOf(call: unknown): Promise<string | undefined> {
    if (!call || typeof call !== "object") return Promise.resolve(undefined);
    const { tool, args } = call as { tool?: unknown; args?: unknown };
    const key = canonical(args);
    const find = (): string | undefined => {
      for (const [id, c] of this.inFlight) {
        if (!c.claimed && c.tool === tool && c.args === key) {
          c.claimed = true;
          return id;
        }
      }
      return undefined;
    };
    const found = find();
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const done = (id: string | undefined): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(id);
      };
      const wake = (giveUp: boolean): void => {
        const id = giveUp ? undefined : find();
        if (id || giveUp) done(id);
      };
      const timer = setTimeout(() => done(undefined), ITEM_WAIT_MS);
      this.waiters.add(wake);
    });
  }

  /** Ends every wait now (turn cancelled, session closed). */
  cancelWaits(): void {
    for (const wake of [...this.waiters]) wake(true);
  }
}

function parseArgs(a: unknown): unknown {
  if (typeof a !== "string") return a;
  try {
    return JSON.parse(a);
  } catch {
    return a;
  }
}

/** JSON with sorted keys, so two equal argument objects compare equal as strings. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
