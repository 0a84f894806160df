// Waiting for agent traffic: a wake-up list with timeouts.

/** Promises that resolve at the next wake() or after a timeout, whichever comes first. */
export class Waiters {
  private resolvers: Array<() => void> = [];
  wake(): void {
    const list = this.resolvers;
    this.resolvers = [];
    for (const r of list) r();
  }
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.resolvers.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
