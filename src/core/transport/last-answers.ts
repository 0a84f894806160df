// The end of the client's input, held until what it asked is answered. A client that writes its
// requests and closes its end of the pipe (a script: `printf ... | codex-cli-acp`) waits for their
// answers; the ACP SDK closes the connection as soon as its input ends, which dropped every answer
// not sent yet (the agent exited with session/new half done). The end reaches the connection once
// every request read was answered, or after a bound: an editor that closes stdin expects the
// process gone soon after, and a stuck request must not keep it. Turns still running at the end
// are cancelled by the caller (`onEnd`), so a prompt is answered `cancelled` instead of running on.
import type { Logger } from "../../log/index.js";

/** How long the answers are waited for once the client's input has ended. */
export const LAST_ANSWERS_MS = 5000;

type RequestId = string | number;

export type LastAnswers<T> = {
  /** The client's messages as read; ends once the input has ended and every request read was answered, or after the bound. */
  readable: ReadableStream<T>;
  /** Tells of a response the agent sent, by its id. */
  answered: (id: unknown) => void;
};

export type LastAnswersOptions = {
  log: Logger;
  /** The input has ended with requests unanswered: stop what would keep them long (running turns). */
  onEnd: () => void;
  boundMs?: number;
};

/** The id of a request (a message with a method and an id an answer can carry back), else undefined. */
function requestIdOf(message: unknown): RequestId | undefined {
  if (typeof message !== "object" || message === null || !("method" in message) || !("id" in message)) return undefined;
  const { id } = message;
  return typeof id === "string" || Number.isInteger(id) ? (id as RequestId) : undefined;
}

/** `input`, whose end waits for the answers to the requests read from it (see the top of this file). */
export function holdEndForAnswers<T>(
  input: ReadableStream<T>,
  { log, onEnd, boundMs = LAST_ANSWERS_MS }: LastAnswersOptions,
): LastAnswers<T> {
  // Requests read and not answered, by id (a count: a client may reuse an id).
  const waiting = new Map<RequestId, number>();
  let allAnswered: (() => void) | undefined;
  const answered = (id: unknown): void => {
    if (typeof id !== "string" && typeof id !== "number") return;
    const count = waiting.get(id);
    if (count === undefined) return;
    if (count > 1) waiting.set(id, count - 1);
    else waiting.delete(id);
    if (waiting.size === 0) allAnswered?.();
  };
  const readable = input.pipeThrough(
    new TransformStream<T, T>({
      transform(message, controller) {
        const id = requestIdOf(message);
        if (id !== undefined) waiting.set(id, (waiting.get(id) ?? 0) + 1);
        controller.enqueue(message);
      },
      async flush() {
        if (waiting.size === 0) return;
        log.info(
          { unanswered: waiting.size },
          "the client closed its input; answering what it asked before shutting down",
        );
        let timer: NodeJS.Timeout | undefined;
        const over = new Promise<boolean>((resolve) => {
          allAnswered = () => resolve(false);
          timer = setTimeout(() => resolve(true), boundMs);
        });
        onEnd();
        const timedOut = await over;
        clearTimeout(timer);
        if (timedOut)
          log.warn(
            { unanswered: [...waiting.keys()], boundMs },
            "requests still unanswered after the client closed its input; shutting down anyway",
          );
      },
    }),
  );
  return { readable, answered };
}
