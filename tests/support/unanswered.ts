// A client request the user (or the editor) never answers: recorded with whether the agent later
// withdrew it (the request's abort signal), for tests of what the agent gives up on.

export type Unanswered<T> = T & { withdrawn: boolean };

/** Records `what` in `into`, marks it withdrawn when `signal` aborts, and returns an answer that never comes. */
export function neverAnswer<T extends object>(
  into: Array<Unanswered<T>>,
  what: T,
  signal: AbortSignal,
): Promise<never> {
  const record = { ...what, withdrawn: false };
  into.push(record);
  signal.addEventListener("abort", () => void (record.withdrawn = true));
  return new Promise<never>(() => undefined);
}
