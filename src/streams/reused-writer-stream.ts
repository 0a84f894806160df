// A WritableStream for a sender that takes a writer per message and releases it after (the ACP
// SDK's connection does: getWriter, write, releaseLock). Releasing a standard writer rejects its
// `ready` and `closed` promises with a new TypeError each: ~2 us and two errors of garbage per
// message, of the 12-14 us the adapter spent on each streamed update. This stream hands out one
// writer that stays, and its release does nothing. What that sender relies on holds: writes reach
// the sink in order and settle when the sink's promise does (back-pressure), close and abort end
// the stream, and a write after that is refused. Not a standard writer in everything: `ready`
// and `desiredSize` do not show back-pressure, and the stream never reports itself locked.
// Anything that writes to the stream itself (a pipe) reaches the same sink.

export type MessageSink<T> = {
  /** Takes one message; a promise holds the sender until it settles (back-pressure). */
  write(message: T): Promise<void> | void;
  /** The sender is done: called once. */
  close(): void;
};

export class ReusedWriterStream<T> extends WritableStream<T> {
  readonly #writer: WritableStreamDefaultWriter<T>;

  constructor(sink: MessageSink<T>) {
    const resolved: Promise<undefined> = Promise.resolve(undefined);
    let ended: { reason: unknown } | undefined;
    let closed!: () => void;
    let failed!: (reason: unknown) => void;
    const closedPromise = new Promise<undefined>((resolve, reject) => {
      closed = () => resolve(undefined);
      failed = reject;
    });
    closedPromise.catch(() => undefined); // an abort nobody awaits is not an unhandled rejection
    const write = (message: T): Promise<void> => {
      if (ended) return Promise.reject(ended.reason);
      try {
        return sink.write(message) ?? resolved;
      } catch (err) {
        return Promise.reject(err);
      }
    };
    const writer: WritableStreamDefaultWriter<T> = {
      get closed() {
        return closedPromise;
      },
      get ready() {
        return resolved;
      },
      get desiredSize() {
        return ended ? 0 : 1;
      },
      write,
      releaseLock: () => undefined,
      close: () => {
        if (!ended) {
          ended = { reason: new TypeError("the stream is closed") };
          sink.close();
          closed();
        }
        return resolved;
      },
      abort: (reason?: unknown) => {
        if (!ended) {
          ended = { reason: reason ?? new TypeError("the stream was aborted") };
          failed(ended.reason);
        }
        return resolved;
      },
    };
    // The stream's own sink is the same writer: a pipe or a writer taken from the base class lands there too.
    super({ write, close: () => writer.close(), abort: (reason) => writer.abort(reason) });
    this.#writer = writer;
  }

  /** The one writer, every time (never a lock: the sender serialises its own writes). */
  override getWriter(): WritableStreamDefaultWriter<T> {
    return this.#writer;
  }

  override close(): Promise<void> {
    return this.#writer.close();
  }

  override abort(reason?: unknown): Promise<void> {
    return this.#writer.abort(reason);
  }
}
