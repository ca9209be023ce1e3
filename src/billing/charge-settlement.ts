import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError } from './store-unavailable-error.js';
import { boundedCall } from './bounded-call.js';
import type { BillingStore, LedgerEntry, LedgerOutcome, Settlement } from './billing-store.js';

/**
 * The answer is given by the request's deadline, or this long after the charge began if that is
 * later (a request that ran close to its deadline still gets to charge).
 */
const MIN_CHARGE_WAIT_MS = 1_500;
/** Kept between the last moment a charge may land and the row's settle limit (when it is refunded). */
const LIMIT_MARGIN_MS = 1_000;
/** Before the answer is due, this long is kept for asking the row where it stands. */
const VERIFY_MS = 500;
const READ_TIMEOUT_MS = 1_000;
const POLL_MS = 200;

export type ChargeResult = 'charged' | 'not charged' | 'unknown';

export interface ChargeClock {
  /** When this side received the reservation's answer (the reservation landed no later). */
  reservedAt: number;
  /** The request's deadline. */
  deadlineAt: number;
  now: () => number;
}

/**
 * Makes a 200's charge durable before the 200 is sent, or establishes that it never will be.
 *
 * The charge statement lands only while the database's own clock says less than `window` has
 * passed since the row was reserved. The reservation landed no later than `reservedAt` (this
 * side's clock), so whenever the statement runs — even long after it was sent, from a server
 * that froze with it in its buffer — it can land before `giveUpAt` or not at all. Clocks of
 * different machines are never compared: only elapsed time on each.
 *
 * When the answer is lost (the connection died, the statement timed out), the row itself is
 * asked: charged, or still reserved (then charged again while there is time), until a read after
 * `giveUpAt` proves that nothing can land any more. Only a database unreachable for all of that,
 * after a charge reached it and lost its answer, leaves the outcome unknown.
 */
export async function settleCharge(store: BillingStore, entry: LedgerEntry, settlement: Settlement, clock: ChargeClock): Promise<ChargeResult> {
  const started = clock.now();
  const answerBy = Math.max(clock.deadlineAt, started + MIN_CHARGE_WAIT_MS);
  const giveUpAt = Math.min(answerBy - VERIFY_MS, clock.reservedAt + entry.settleLimitMs - LIMIT_MARGIN_MS);
  const windowMs = giveUpAt - clock.reservedAt;
  // Whether any attempt reached the database and lost its answer (else none ever ran).
  let mayHaveLanded = false;
  const attempt = async (): Promise<boolean | undefined> => {
    const left = giveUpAt - clock.now();
    if (left <= 0) return false;
    try {
      return await boundedCall('the charge', left, () => store.charge(entry.requestId, settlement, windowMs, left));
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      if (err.mayHaveRun) mayHaveLanded = true;
      return undefined;
    }
  };
  const first = await attempt();
  if (first === true) return 'charged';
  // Not charged, or not known: the row says which, and a read after giveUpAt is final.
  for (;;) {
    const asked = clock.now();
    let outcome: LedgerOutcome | undefined;
    try {
      const readMs = Math.max(50, Math.min(READ_TIMEOUT_MS, answerBy - asked));
      outcome = await boundedCall('the charge\'s read-back', readMs, () => store.outcomeOf(entry.requestId, readMs));
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
    }
    if (outcome === 'charged') return 'charged';
    if (outcome !== undefined && outcome !== 'reserved') return 'not charged';
    if (outcome === 'reserved') {
      if (asked >= giveUpAt) return 'not charged';
      if ((await attempt()) === true) return 'charged';
    }
    // Unreachable throughout: unknown only if a charge was sent and its answer lost.
    if (clock.now() >= answerBy) return mayHaveLanded ? 'unknown' : 'not charged';
    await sleep(POLL_MS);
  }
}
