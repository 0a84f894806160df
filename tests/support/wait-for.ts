// Waiting in tests on what happens, never on how long it takes: a condition polled until it holds
// (its cap is a generous limit that fails the test, not a time the test asserts), and the point
// where promise-only code has run everything it had queued.

/**
 * Resolves once `condition()` holds; throws, naming `what` (a function: described as things are
 * when it gives up), when it still does not after `timeoutMs`, so a condition that never comes
 * fails the test instead of being skipped.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`gave up after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Resolves one macrotask later, once every promise reaction queued until then (and every one
 * those queue in turn) has run: for code that settles through promises only, what has not
 * happened by then is waiting on something else.
 */
export function afterQueuedPromises(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
