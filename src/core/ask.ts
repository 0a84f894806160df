// One question to the client (a permission prompt, a form) that a cancel of the turn resolves at
// once, whether or not the client ever answers: the prompt must end `cancelled` within a second.
import type { AcpSession } from "./session/session.js";

export type Asked<T> = { answer: T; cancelled: false } | { cancelled: true };

/**
 * Sends `request` after every update queued so far reached the client (so the tool call it is
 * about is known) and resolves with its answer, or with `cancelled` when the turn is cancelled or
 * `withdraw` fires (the request is aborted: the client gets $/cancel_request). A turn already
 * cancelling asks nobody.
 */
export async function askClient<T>(
  session: AcpSession,
  withdraw: AbortSignal | undefined,
  request: (signal: AbortSignal) => Promise<T>,
): Promise<Asked<T>> {
  await session.flush();
  if (session.cancelling || withdraw?.aborted) return { cancelled: true };
  const controller = new AbortController();
  let hook!: () => void;
  const onCancel = new Promise<Asked<T>>((resolve) => {
    hook = () => {
      controller.abort();
      resolve({ cancelled: true });
    };
  });
  const stopListening = session.on("cancel", hook);
  withdraw?.addEventListener("abort", hook, { once: true });
  try {
    const asked = request(controller.signal).then(
      (answer): Asked<T> => ({ answer, cancelled: false }),
      (err: unknown): Asked<T> => {
        if (controller.signal.aborted) return { cancelled: true };
        throw err;
      },
    );
    return await Promise.race([asked, onCancel]);
  } finally {
    stopListening();
    withdraw?.removeEventListener("abort", hook);
  }
}
