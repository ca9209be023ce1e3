/** How one kind of ledger write is sent: alone, or many in one round trip. */
export interface BatchedWrite<I, O> {
  one(item: I, timeoutMs: number | undefined): Promise<O>;
  /** One output per item, in the items' order. */
  many(items: I[], timeoutMs: number | undefined): Promise<O[]>;
  /** The order items are written in, so that two batches take their locks in the same order. */
  compare(a: I, b: I): number;
}

interface Pending<I, O> {
  item: I;
  timeoutMs: number | undefined;
  resolve(value: O): void;
  reject(err: unknown): void;
}

/** At most this many writes share a round trip (the batch's JSON stays a few tens of KB). */
const MAX_BATCH = 64;

/**
 * A statement the server rejected and rolled back whole (the procedures' handler does): no write
 * of the batch happened, so each can be sent again alone and meet its own answer. A lost lock is
 * left to the caller's retry, and a timeout or a lost connection to the caller's uncertainty: the
 * batch may have committed.
 */
function rejectedWhole(err: unknown): boolean {
  const e = err as { sqlState?: unknown; code?: unknown; fatal?: unknown } | null;
  return typeof e?.sqlState === 'string' && e.fatal !== true && e.code !== 'ER_LOCK_DEADLOCK' && e.code !== 'ER_LOCK_WAIT_TIMEOUT';
}

/**
 * Group commit for the ledger's writes on MySQL. Under load every request's reservation meets the
 * key's row lock and a commit of its own; the writes that arrive in one turn of the event loop
 * are sent together instead, as one procedure call that commits once, and each caller gets its
 * own answer after that commit (so a charge is still durable before its 200 leaves). A write
 * alone goes out as its single procedure: nothing waits for company.
 */
export class MysqlBatcher<I, O> {
  private pending: Array<Pending<I, O>> = [];
  private scheduled = false;

  constructor(private readonly write: BatchedWrite<I, O>) {}

  submit(item: I, timeoutMs: number | undefined): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, timeoutMs, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.pending.length > 0) void this.send(this.pending.splice(0, MAX_BATCH));
  }

  private async send(batch: Array<Pending<I, O>>): Promise<void> {
    if (batch.length === 1) return this.alone(batch[0]);
    batch.sort((a, b) => this.write.compare(a.item, b.item));
    // The longest limit bounds the connection; each caller's own deadline is its billing's (bounded-call.ts).
    const limits = batch.map((p) => p.timeoutMs);
    const timeoutMs = limits.includes(undefined) ? undefined : Math.max(...(limits as number[]));
    let outputs: O[];
    try {
      outputs = await this.write.many(batch.map((p) => p.item), timeoutMs);
    } catch (err) {
      if (rejectedWhole(err)) await Promise.all(batch.map((p) => this.alone(p)));
      else for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => p.resolve(outputs[i]));
  }

  private async alone(p: Pending<I, O>): Promise<void> {
    try {
      p.resolve(await this.write.one(p.item, p.timeoutMs));
    } catch (err) {
      p.reject(err);
    }
  }
}
