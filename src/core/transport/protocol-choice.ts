// Which protocol a client speaks, from its `initialize` (its first message but for notifications):
// a v2 client says so there (protocolVersion 2 or more). Only then is ACP v2 loaded (src/protocol-v2, through the SDK's
// router); every other client is served v1 exactly as before, and pays nothing for v2.
import { z } from "zod";

const initializeAskingV2 = z.looseObject({
  method: z.literal("initialize"),
  params: z.looseObject({ protocolVersion: z.number().int().min(2) }),
});

/** Whether `message` is an initialize request asking for protocol 2 or newer. */
export function asksForV2(message: unknown): boolean {
  return initializeAskingV2.safeParse(message).success;
}

/** Notifications looked past for the initialize before v1 is chosen: a client that never initializes holds nothing. */
const MAX_LOOKED_PAST = 32;

const isNotification = (message: unknown): boolean =>
  typeof message === "object" && message !== null && "method" in message && !("id" in message);

/**
 * Reads `messages` up to the client's `initialize` (the message the protocol is chosen by), past
 * notifications only: a request before it decides at once (its client may wait for the answer
 * before it initializes), as do MAX_LOOKED_PAST notifications. Gives back the stream to serve,
 * every message read included, in order, and the initialize (undefined when none was found: v1).
 */
export async function peekInitialize<T>(
  messages: ReadableStream<T>,
): Promise<{ initialize: T | undefined; stream: ReadableStream<T> }> {
  const reader = messages.getReader();
  const read: T[] = [];
  let initialize: T | undefined;
  let ended = false;
  while (read.length <= MAX_LOOKED_PAST) {
    const next = await reader.read();
    if (next.done) {
      ended = true;
      break;
    }
    read.push(next.value);
    if (isNotification(next.value)) continue;
    if (
      typeof next.value === "object" &&
      next.value !== null &&
      (next.value as { method?: unknown }).method === "initialize"
    )
      initialize = next.value;
    break;
  }
  const stream = new ReadableStream<T>({
    async pull(controller) {
      const pending = read.shift();
      if (pending !== undefined) return controller.enqueue(pending);
      const next = ended ? { done: true as const } : await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { initialize, stream };
}
