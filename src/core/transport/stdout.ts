// The agent's stdout: every JSON-RPC message the connection sends, as one line each, written
// with one write per turn of the event loop.
import { performance } from "node:perf_hooks";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { ReusedWriterStream } from "../../streams/index.js";

/** How long a streamed notification may wait to share a write with the ones after it. */
export const STREAM_WINDOW_MS = 2;
/** What a window may gather before it is written anyway (a pipe's buffer: one write the reader takes whole). */
const WINDOW_MAX_CHARS = 64 * 1024;

/** What is written to: the process's stdout (a test gives its own). */
export type LineSink = Pick<NodeJS.WriteStream, "write" | "writableNeedDrain" | "once" | "on">;

export type Stdout = {
  /** The connection's outgoing messages (the `writable` of the stream given to `connect`). */
  messages: WritableStream<acp.AnyMessage>;
  /** Bytes the SDK's ndjson reader writes itself (its answers to lines that are not JSON). */
  bytes: WritableStream<Uint8Array>;
  /** A message of our own (not through the SDK), in the same batches. */
  sendLine(line: string): void;
  /** Writes what is queued now (at shutdown). */
  flush(): void;
  /** Calls `listener` with the id of every response sent (an answer to one of the client's requests). */
  onAnswer(listener: (id: unknown) => void): void;
};

/**
 * stdout for the ACP connection. Messages are serialised here, as strings, instead of through
 * the SDK's ndjson writer, which encodes each one into a buffer of its own behind a promise
 * chain and a writer lock: those small buffers are C allocations, and under a stream of
 * thousands of updates the ones that outlived a young-generation GC stayed until a full one,
 * growing the C heap by ~1.5 MiB per 5,000-delta turn. Every message queued in one turn of the
 * event loop goes out in a single write (one syscall per message cost a fifth of a stream's
 * CPU). The bytes are the same: `JSON.stringify` and "\n".
 *
 * A stream of notifications arrives one per turn of the event loop (codex writes each delta on its
 * own), so a notification that comes within STREAM_WINDOW_MS of the last write waits for the
 * window's end and goes out with the others that came meanwhile: a 5,000-delta stream then takes
 * a few hundred writes instead of ~5,000. Nothing waits otherwise: the first update after a pause,
 * and every request and response (a prompt's answer, a permission request), go out on the next
 * turn as before, with whatever is queued ahead of them.
 *
 * Memory is bounded by the reader. When the pipe does not take a batch whole, nothing more is
 * accepted until it drains (the SDK's writes wait in its queue) and `onBehind(true)` says the
 * client is behind: the agent stops reading codex (src/codex/client.ts `holdOutput`), so codex
 * waits on its own pipe instead of the messages made of its output piling up here;
 * `onBehind(false)` once ours has drained. (A client that stopped reading for 3 s during a
 * 100 MB command output grew the adapter by 221 MiB before.) The client closing its end (EPIPE)
 * is reported once through `onClosed`; what is queued then is dropped.
 */
export function batchedStdout(
  onClosed: (err: NodeJS.ErrnoException) => void,
  onBehind: (behind: boolean) => void = () => undefined,
  out: LineSink = process.stdout,
): Stdout {
  let pending: string[] = [];
  let pendingChars = 0;
  let scheduled = false;
  let windowTimer: NodeJS.Timeout | undefined;
  let lastWrite = -Infinity;
  // Set while the pipe has not taken everything written (the client is behind).
  let drained: Promise<void> | undefined;
  let resolveDrained: (() => void) | undefined;
  let closed = false;
  let answered: ((id: unknown) => void) | undefined;
  const decoder = new TextDecoder();
  // EPIPE (the reader is gone) arrives as an 'error' event: without a listener it would crash us.
  out.on("error", (err: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    pending = [];
    resolveDrained?.(); // nothing will drain now: writers must not wait for it
    onClosed(err);
  });
  const flush = (): void => {
    scheduled = false;
    if (windowTimer) clearTimeout(windowTimer);
    windowTimer = undefined;
    if (closed) {
      pending = [];
      pendingChars = 0;
    }
    if (pending.length === 0) return;
    const text = pending.length === 1 ? pending[0]! : pending.join("");
    pending = [];
    pendingChars = 0;
    lastWrite = performance.now();
    // The one place ACP reaches stdout (the protocol itself; logs go through pino to stderr).
    out.write(text);
    // The pipe did not take it all at once: hold the writers until the stream says it drained.
    if (out.writableNeedDrain && !drained) {
      drained = new Promise<void>((resolve) => {
        resolveDrained = () => {
          drained = undefined;
          resolveDrained = undefined;
          onBehind(false);
          resolve();
        };
        out.once("drain", resolveDrained);
      });
      onBehind(true);
    }
  };
  /** Queues a line; `streamed` (a notification) may wait for the end of the stream window. */
  const enqueue = (line: string, streamed = false): void => {
    if (closed) return;
    pending.push(line);
    pendingChars += line.length;
    if (scheduled) return;
    const sinceWrite = performance.now() - lastWrite;
    if (streamed && sinceWrite < STREAM_WINDOW_MS && pendingChars < WINDOW_MAX_CHARS) {
      windowTimer ??= setTimeout(flush, STREAM_WINDOW_MS - sinceWrite);
      return;
    }
    scheduled = true;
    setImmediate(flush);
  };
  // The SDK takes a writer per message: one that stays spares it a standard writer's release.
  const messages = new ReusedWriterStream<acp.AnyMessage>({
    write(message) {
      const isAnswer = !("method" in message);
      enqueue(`${JSON.stringify(message)}\n`, !isAnswer && !("id" in message));
      if (isAnswer && answered) answered(message.id);
      return drained;
    },
    close: flush,
  });
  const bytes = new WritableStream<Uint8Array>({
    write(chunk) {
      enqueue(decoder.decode(chunk));
      return drained;
    },
  });
  const onAnswer = (listener: (id: unknown) => void): void => {
    answered = listener;
  };
  return { messages, bytes, sendLine: (line) => enqueue(`${line}\n`), flush, onAnswer };
}
