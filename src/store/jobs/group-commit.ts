interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(err: unknown): void;
}

/** At most this many writes share a transaction (its statements' lists stay short). */
const MAX_BATCH = 64;

/**
 * Group commit for job items' writes. A batch's items each cost a transaction's round trips and a
 * commit of their own when written alone; here one write of a kind is in flight at a time, and
 * whatever arrives meanwhile goes out together as the next, in one transaction. Under load the
 * batches grow with the load; alone, a write goes out at the next turn of the event loop and waits
 * for nobody. Each caller is answered after the commit holding its write.
 *
 * A batch that fails is sent again one write at a time, so that each caller meets its own answer
 * (a lost lock, or one write's own error, does not fail the writes beside it).
 */
export class GroupCommit<I, O> {
  private pending: Array<Pending<I, O>> = [];
  private draining = false;

  constructor(private readonly write: (items: I[]) => Promise<O[]>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) await this.send(this.pending.splice(0, MAX_BATCH));
    this.draining = false;
  }

  private async send(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const outputs = await this.write(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(outputs[i]));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      for (const p of batch) await this.send([p]);
    }
  }
}
