// Codex's requests to this client still being answered (approvals, questions), so one Codex says
// was settled elsewhere (`serverRequest/resolved`: another client of the thread answered it, or the
// session that was asked answered it while the thread was being loaded again) is withdrawn from
// the user instead of staying open in the editor. Ids are per connection, but Codex asks again with
// the same id on a thread resumed while its question was open: an id can be answered twice at once.
const resolvedParams = (params: unknown): string | undefined => {
  if (typeof params !== "object" || params === null) return undefined;
  const id = (params as { requestId?: unknown }).requestId;
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined;
};

export class ServerRequestsInFlight {
  private readonly answering = new Map<string, Set<AbortController>>();

  /** A request is being answered: its signal fires if Codex settles it elsewhere; call `done` once answered. */
  begin(id: string | number): { signal: AbortSignal; done: () => void } {
    const key = String(id);
    const controller = new AbortController();
    const set = this.answering.get(key) ?? new Set();
    set.add(controller);
    this.answering.set(key, set);
    return {
      signal: controller.signal,
      done: () => {
        set.delete(controller);
        if (set.size === 0 && this.answering.get(key) === set) this.answering.delete(key);
      },
    };
  }

  /** `serverRequest/resolved`'s params: withdraws what still answers that request. */
  resolved(params: unknown): void {
    const key = resolvedParams(params);
    const set = key === undefined ? undefined : this.answering.get(key);
    for (const controller of set ?? []) controller.abort(new Error("Codex settled this request elsewhere"));
  }

  get size(): number {
    return this.answering.size;
  }
}
