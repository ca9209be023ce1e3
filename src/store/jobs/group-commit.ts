interface Pending<I, O> {
  item: I;
  /** Its payload's bytes, weighed once when it arrives. */
  bytes: number;
  resolve(value: O): void;
  reject(err: unknown): void;
}

/** At most this many writes share a transaction (its statements' lists stay short). */
const MAX_BATCH = 64;
/**
 * And at most this much payload: stored answers run to megabytes each, and 64 of them in one
 * statement would be hundreds of MiB held at once and sent past MySQL's max_allowed_packet. A
 * write heavier than this alone still goes, alone.
 */
export const GROUP_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Group commit for job items' writes. A batch's items each cost a transaction's round trips and a
 * commit of their own when written alone; here one write of a kind is in flight at a time, and
 * whatever arrives meanwhile goes out together as the next, in one transaction. Under load the
 * batches grow with the load; alone, a write goes out at the next turn of the event loop and waits
 * for nobody. Each caller is answered after the commit holding its write. A group is bounded by
 * count and by payload (GROUP_MAX_BYTES): a queue of large answers goes out as several groups.
 *
 * A batch that fails is sent again one write at a time, so that each caller meets its own answer
 * (a lost lock, or one write's own error, does not fail the writes beside it).
 */
export class GroupCommit<I, O> {
  private pending: Array<Pending<I, O>> = [];
  private draining = false;

  /** `weigh`: a write's payload in bytes (none by default: starts and ends carry only ids). */
  constructor(private readonly write: (items: I[]) => Promise<O[]>, private readonly weigh: (item: I) => number = () => 0) {}

  submit(item: I): Promise<O> {
    const bytes = this.weigh(item);
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, bytes, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) await this.send(this.pending.splice(0, this.nextGroup()));
    this.draining = false;
  }

  /** How many of the writes waiting go in the next group: up to MAX_BATCH and GROUP_MAX_BYTES, at least one. */
  private nextGroup(): number {
    let count = 0;
    let bytes = 0;
    while (count < this.pending.length && count < MAX_BATCH) {
      const next = this.pending[count].bytes;
      if (count > 0 && bytes + next > GROUP_MAX_BYTES) break;
      bytes += next;
      count++;
    }
    return count;
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
