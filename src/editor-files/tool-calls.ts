// Which app-server item a file-tool call belongs to. The MCP request carries no item id, but
// Codex announces the item (item/started, with the tool and its arguments) before it calls the
// tool, so a call is matched to the first unclaimed in-flight item of the same tool with the same
// arguments (from the session's one tracker of in-flight items). A permission prompt then names
// the tool call the editor already shows.
import type { Item } from "../bridge/index.js";
import type { CodexNotification } from "../codex/index.js";
import { FILE_TOOLS_SERVER } from "./contract/index.js";

/** How long a call waits for its item (Codex's item/started racing the MCP request). */
const ITEM_WAIT_MS = 1000;

export class FileToolCalls {
  /** Item ids already matched to a call. */
  private readonly claimed = new Set<string>();
  /** Pending itemIdOf calls: `giveUp` true resolves them with undefined at once. */
  private readonly waiters = new Set<(giveUp: boolean) => void>();
  /** The answer for each call asked about: a call's prompt and its rollback notice name the same item. */
  private readonly answered = new WeakMap<object, Promise<string | undefined>>();

  /** `items`: the session's in-flight items (its one tracker). */
  constructor(private readonly items: ReadonlyMap<string, Item>) {}

  /** Feed every thread notification of the session. */
  observe(n: CodexNotification): void {
    if (n.method === "item/completed") this.claimed.delete(n.params.item.id);
    // A claim outlives its item when the item never completes (a given-up turn, a dead codex).
    else if (n.method === "turn/started" || n.method === "turn/completed") this.forgetEndedClaims();
    else if (
      n.method === "item/started" &&
      n.params.item.type === "mcpToolCall" &&
      n.params.item.server === FILE_TOOLS_SERVER
    ) {
      for (const wake of [...this.waiters]) wake(false);
    }
  }

  /** The item id of `call` ({tool, args} as the MCP request had them), if it can be told within a second. */
  itemIdOf(call: unknown): Promise<string | undefined> {
    if (!call || typeof call !== "object") return Promise.resolve(undefined);
    let answer = this.answered.get(call);
    if (!answer) {
      answer = this.match(call);
      this.answered.set(call, answer);
    }
    return answer;
  }

  private match(call: object): Promise<string | undefined> {
    const { tool, args } = call as { tool?: unknown; args?: unknown };
    const key = canonical(args);
    const find = (): string | undefined => {
      for (const [id, item] of this.items) {
        if (item.type !== "mcpToolCall" || item.server !== FILE_TOOLS_SERVER || this.claimed.has(id)) continue;
        if (item.tool === tool && canonical(parseArgs(item.arguments)) === key) {
          this.claimed.add(id);
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

  /** How many items are claimed (bounded by the items in flight). */
  get claimedCount(): number {
    return this.claimed.size;
  }

  private forgetEndedClaims(): void {
    for (const id of this.claimed) if (!this.items.has(id)) this.claimed.delete(id);
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
      ? Object.fromEntries(
          Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : value,
  );
}
