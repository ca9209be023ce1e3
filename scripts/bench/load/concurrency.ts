// How the load run paces its requests: a fixed number of loops taking the next request, and a
// separate limit on browser requests so they never outnumber the pool's sessions.

/** In-flight browser requests held to the pool's size: the load a pool can take, not a queue of timeouts. */
export class Semaphore {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(size: number) {
    this.free = size;
  }
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** Runs `work` over `items` with `concurrency` loops; stops taking new items once the time is up. Returns how many were started. */
export async function runConcurrently<T>(items: T[], concurrency: number, remaining: () => number, work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length && remaining() > 0) await work(items[next++]);
    }),
  );
  return next;
}
