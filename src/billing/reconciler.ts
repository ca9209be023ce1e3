import { PeriodicJob } from '../time/periodic-job.js';
import type { BillingStore, LedgerBooks } from './billing-store.js';

export interface ReconcilerOptions {
  store: BillingStore;
  books: LedgerBooks;
  /** Past a reservation's settle limit (when nothing can charge it any more), this much longer. */
  marginMs: number;
  intervalMs: number;
  onRefunded?: (count: number) => void;
  onError?: (err: unknown) => void;
  now?: () => number;
}

const BATCH = 200;

/**
 * Finishes what requests could not: a reservation left reserved (its instance was killed, the
 * database was away when it settled) is refunded once its settle limit has passed on the
 * database's own clock, plus a margin. By then nothing can charge it any more (a charge lands
 * only within its window, which ends before the limit), so refunding it is exact; the refund is
 * conditional on the row still being reserved, so any number of instances may reconcile at once,
 * whatever their clocks say, and each row is refunded once. Slots of settled requests whose
 * release met an outage are freed too. Runs at start and then every `intervalMs`.
 */
export class Reconciler {
  private readonly job: PeriodicJob;

  constructor(private readonly options: ReconcilerOptions) {
    this.job = new PeriodicJob(
      async () => {
        const refunded = await this.reconcileOnce();
        if (refunded > 0) this.options.onRefunded?.(refunded);
      },
      options.intervalMs,
      (err) => this.options.onError?.(err),
    );
  }

  start(): void {
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  /** One pass; the number of reservations it refunded. */
  async reconcileOnce(): Promise<number> {
    const { store, books, marginMs } = this.options;
    const now = this.options.now ?? Date.now;
    let refunded = 0;
    for (;;) {
      const stale = await books.staleReservations(marginMs, BATCH);
      for (const requestId of stale) {
        const settlement = { endedAt: now(), status: null, pageStatus: null, durationMs: 0, failure: 'not settled by its request (its instance stopped, or the database was unavailable)', proxyCountry: null };
        if (await store.refund(requestId, settlement, false, 'reconcile')) refunded++;
      }
      if (stale.length < BATCH) break;
    }
    await books.releaseSettledSlots(marginMs);
    return refunded;
  }
}
