/** One key's refusals of one status on one UTC day. */
export interface RefusalCount {
  apiKeyId: number;
  day: string;
  status: number;
  count: number;
}

/** Where the counts are added up for good (store/usage-refusals-sql.ts). */
export interface RefusalCounts {
  add(counts: RefusalCount[]): Promise<void>;
}

const FLUSH_EVERY_MS = 5_000;
/** Distinct (key, day, status) counts held at most between flushes: past it they are written at once. */
const MAX_PENDING = 10_000;

/**
 * Counts refused requests (403, 409, 429) per key, day and status for the key's usage report.
 * A refusal is cheap on purpose: it costs the database nothing on its path. Counts are summed
 * in memory and written every few seconds, a few hundred per statement, so a client hammering a
 * key at its limit makes a handful of writes, not one per refusal. They are not money: a crash
 * loses at most the last few seconds of them, never a credit.
 */
export class RefusalTally {
  private pending = new Map<string, RefusalCount>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly counts: RefusalCounts,
    private readonly onError: (err: unknown) => void,
    private readonly flushEveryMs = FLUSH_EVERY_MS,
  ) {}

  count(apiKeyId: number, status: number, at: number): void {
    const day = new Date(at).toISOString().slice(0, 10);
    const id = `${apiKeyId}|${day}|${status}`;
    const entry = this.pending.get(id);
    if (entry) entry.count += 1;
    else this.pending.set(id, { apiKeyId, day, status, count: 1 });
    if (this.pending.size >= MAX_PENDING) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushEveryMs).unref();
  }

  /** Writes what is pending; one flush at a time, in order. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.counts.add(batch)).catch((err: unknown) => this.onError(err));
    return this.flushing;
  }

  /** At shutdown: the last counts are written before the database closes. */
  close(): Promise<void> {
    return this.flush();
  }
}
