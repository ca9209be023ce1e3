import { ChargeNotRecordedError } from './charge-not-recorded-error.js';
import type { BillingStore, Debit, Lease, LedgerEntry, Settlement } from './billing-store.js';
import { boundedCall } from './bounded-call.js';
import { settleCharge } from './charge-settlement.js';
import type { DeferredWrites } from './deferred-writes.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

/** How a request ended, as the caller knows it. */
export type Outcome = Omit<Settlement, 'endedAt' | 'durationMs'>;

/**
 * One request's credits, taken (and written to the ledger) before any work: settled exactly
 * once, as charged (the answer is a 200) or refunded (anything else). Either way its concurrency
 * slot, if it holds one, is freed.
 */
export interface Reservation {
  readonly cost: number;
  readonly requestId: string;
  /** Durable before it returns; ChargeNotRecordedError when it could not be made so (then refund). */
  charge(outcome: Outcome): Promise<void>;
  /** `failure`: a browser request that ran and failed, counted against the key's budget. */
  refund(outcome: Outcome, failure: boolean): Promise<void>;
}

/** What a reservation needs of the billing that made it. */
export interface ReservationDeps {
  store: BillingStore;
  deferred: DeferredWrites;
  now: () => number;
  /** Frees a capped key's concurrency slot; never throws. */
  release: (lease: Lease) => Promise<void>;
  /** How long a refund waits for the database before it is left to the deferred writes. */
  giveBackLimitMs: number;
}

/** The reservation of a ledger row just written: settled exactly once, by a charge or a refund. */
export function openReservation(deps: ReservationDeps, entry: LedgerEntry, debit: Debit, deadlineAt: number, lease: Lease | undefined): Reservation {
  const reservedAt = deps.now();
  let settled = false;
  const once = () => {
    if (settled) throw new Error('a reservation is settled once');
    settled = true;
  };
  // A duration is a request's (seconds); a clock that jumps must not overflow its column.
  const settlement = (outcome: Outcome): Settlement => ({ ...outcome, endedAt: deps.now(), durationMs: Math.min(Math.max(0, deps.now() - debit.at), 2 ** 31 - 1) });
  const { store } = deps;
  return {
    cost: debit.cost,
    requestId: entry.requestId,
    charge: async (outcome) => {
      once();
      const result = await settleCharge(store, entry, settlement(outcome), { reservedAt, deadlineAt, now: deps.now });
      if (result !== 'charged') {
        // Not charged: the reservation is still to be settled, by a refund.
        settled = false;
        throw new ChargeNotRecordedError(entry.requestId, result === 'unknown');
      }
      if (lease) await deps.release(lease);
    },
    refund: async (outcome, failure) => {
      once();
      let databaseAway = false;
      try {
        const what = `the refund of request ${entry.requestId}`;
        const write = () => store.refund(entry.requestId, settlement(outcome), failure, 'request', deps.giveBackLimitMs);
        await boundedCall(what, deps.giveBackLimitMs, () => deps.deferred.run(what, write, { idempotent: true }));
      } catch (err) {
        // The row stays reserved: reconciliation refunds it. The caller's answer stands.
        if (!(err instanceof StoreUnavailableError)) throw err;
        databaseAway = true;
      }
      // The refund frees a capped key's slot in the same statement; a deferred one, here. With
      // the database away the answer does not wait for it (the slot expires or is freed later).
      if (lease) {
        const released = deps.release(lease);
        if (!databaseAway) await released;
      }
    },
  };
}
