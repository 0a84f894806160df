// A session's updates on their way to the client, in the order they were sent. Every streamed
// delta passes here, so the common case costs no promise chain of its own: an update with nothing
// waiting ahead of it is handed to the connection at once (the connection writes in the order it
// is handed messages); only a hold, or an update still waiting, makes the next ones queue.

export type OutboxOptions<U> = {
  /** Hands one update to the connection; settles once it is written (rejects if it cannot be). */
  deliver(update: U): Promise<void>;
  /** Set while the session's updates must wait (a stored session's history is still being written). */
  hold(): Promise<void> | undefined;
  /** A delivery that failed (the client is gone): reported once per update, whoever awaits it. */
  onFailure(err: unknown): void;
};

export class UpdateOutbox<U> {
  /** Settles (never rejects) once every update that had to wait has been delivered or has failed. */
  private tail: Promise<void> = Promise.resolve();
  /** Updates that had to wait and have not settled yet: while any do, the next ones wait too. */
  private waiting = 0;
  private readonly failed = (err: unknown): void => this.opts.onFailure(err);
  private readonly settled = (): void => {
    this.waiting--;
  };
  private readonly settledWithFailure = (err: unknown): void => {
    this.waiting--;
    this.opts.onFailure(err);
  };

  constructor(private readonly opts: OutboxOptions<U>) {}

  /**
   * Sends `update` after every update sent before it; rejects if it could not be delivered. An
   * update still being made (a promise: a command's card waiting for its diffs) holds back every
   * update sent after it until it is made.
   */
  send(update: U | Promise<U>): Promise<void> {
    if (!(update instanceof Promise) && this.waiting === 0 && this.opts.hold() === undefined) {
      const sent = this.opts.deliver(update);
      sent.catch(this.failed);
      return sent;
    }
    this.waiting++;
    const sent = this.tail.then(() => this.deliverAfterHold(update));
    this.tail = sent.then(this.settled, this.settledWithFailure);
    return sent;
  }

  /**
   * Resolves once every update sent so far has been handed to the connection, in order: what is
   * sent through the connection after this (a permission request, a prompt's answer) follows them.
   */
  flush(): Promise<void> {
    return this.tail;
  }

  private async deliverAfterHold(update: U | Promise<U>): Promise<void> {
    const made = await update;
    // A hold set while this update waited (a load began) still applies to it.
    const hold = this.opts.hold();
    if (hold) await hold;
    return this.opts.deliver(made);
  }
}
