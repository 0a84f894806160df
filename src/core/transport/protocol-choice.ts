// Which protocol a client speaks, from its first message: a v2 client says so in `initialize`
// (protocolVersion 2 or more). Only then is ACP v2 loaded (src/protocol-v2, through the SDK's
// router); every other client is served v1 exactly as before, and pays nothing for v2.
import { z } from "zod";

const initializeAskingV2 = z.looseObject({ method: z.literal("initialize"), params: z.looseObject({ protocolVersion: z.number().int().min(2) }) });

/** Whether `message` is an initialize request asking for protocol 2 or newer. */
export function asksForV2(message: unknown): boolean {
  return initializeAskingV2.safeParse(message).success;
}

/**
 * Reads the first message of `messages`, then gives it back with the rest: the stream to serve,
 * and the first message to choose the protocol by (undefined when the client left before any).
 */
export async function peekFirst<T>(messages: ReadableStream<T>): Promise<{ first: T | undefined; stream: ReadableStream<T> }> {
  const reader = messages.getReader();
  const head = await reader.read();
  let pending: T | undefined = head.done ? undefined : head.value;
  const stream = new ReadableStream<T>({
    async pull(controller) {
      if (pending !== undefined) {
        controller.enqueue(pending);
        pending = undefined;
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { first: head.done ? undefined : head.value, stream };
}
