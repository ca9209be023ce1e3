import { PeriodicJob } from '../time/periodic-job.js';
import type { LedgerBooks } from './billing-store.js';

const DAY_MS = 86_400_000;
/** A day is totalled for good once every request of it has certainly settled (longer than any settle limit). */
const FINAL_AFTER_MS = 3_600_000;
const PRUNE_BATCH = 500;
const PAUSE_BETWEEN_BATCHES_MS = 50;

export interface LedgerUpkeepOptions {
  books: LedgerBooks;
  /** Ledger rows are kept this long; the daily totals for good. */
  retentionMs: number;
  intervalMs: number;
  onError?: (err: unknown) => void;
  now?: () => number;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Keeps the ledger's daily totals and its retention: today is totalled again on every pass,
 * each day before it once, for good, when all its requests have settled (the mark
 * `totalled_through` says how far); then rows older than the retention, on days totalled for
 * good, are deleted in small batches.
 */
export class LedgerUpkeep {
  private readonly job: PeriodicJob;

  constructor(private readonly options: LedgerUpkeepOptions) {
    this.job = new PeriodicJob(() => this.runOnce(), options.intervalMs, (err) => this.options.onError?.(err));
  }

  start(): void {
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  async runOnce(): Promise<void> {
    const { books } = this.options;
    const now = (this.options.now ?? Date.now)();
    const through = await books.mark('totalled_through');
    const lastFinal = dayOf(now - FINAL_AFTER_MS - DAY_MS);
    // Up to a month of days a pass, from the day after the mark (the first time: the ledger's first day).
    const since = Number((await books.mark('ledger_since')) ?? now);
    let day = through ? dayOf(Date.parse(`${through}T00:00:00Z`) + DAY_MS) : dayOf(since);
    for (let i = 0; i < 31 && day <= lastFinal; i++) {
      await books.rollupDay(day, now);
      await books.setMark('totalled_through', day);
      day = dayOf(Date.parse(`${day}T00:00:00Z`) + DAY_MS);
    }
    for (let d = dayOf(now - FINAL_AFTER_MS); d <= dayOf(now); d = dayOf(Date.parse(`${d}T00:00:00Z`) + DAY_MS)) {
      if (!through || d > (await books.mark('totalled_through'))!) await books.rollupDay(d, now);
    }
    for (;;) {
      const deleted = await books.prune(now - this.options.retentionMs, PRUNE_BATCH);
      if (deleted < PRUNE_BATCH) break;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_BETWEEN_BATCHES_MS));
    }
  }
}
