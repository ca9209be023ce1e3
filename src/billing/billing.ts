import { createHash, randomUUID } from 'node:crypto';
import { BrowserBudgetExceededError, ConcurrencyLimitError, InsufficientCreditsError, InvalidKeyError, IpRestrictedError } from './billing-refusals.js';
import { AlreadyChargedError, LedgerRowExistsError } from './ledger-row-errors.js';
import { StoreUnavailableError } from './store-unavailable-error.js';
import { IpAllowList } from '../ip/ip-allow-list.js';
import { currentPeriod } from './billing-period.js';
import type { BillingStore, BrowserFailureBudget, Debit, KeyAccount, Lease, LedgerEntry } from './billing-store.js';
import { pastBudget, secondsUntilWindowEnds } from './browser-budget.js';
import { boundedCall } from './bounded-call.js';
import type { DeferredWrites } from './deferred-writes.js';
import { openReservation, type Reservation } from './reservation.js';

/** A key is stored, and looked up, only as its SHA-256. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What the ledger keeps of a request besides its key and cost (the target's host only, no URL). */
export type RequestFacts = Pick<LedgerEntry, 'operation' | 'engine' | 'proxyType' | 'proxyCountry' | 'targetHost'>;

export interface BillingOptions {
  store: BillingStore;
  /**
   * Refunds and slot releases that meet a database outage are retried from here while the
   * process lives: a cache in front of the ledger, which holds them durably either way
   * (reconciliation refunds a reservation its request could not settle).
   */
  deferred: DeferredWrites;
  budget: BrowserFailureBudget;
  /** How long a concurrency slot outlives its request's deadline if the server holding it dies. */
  leaseGraceMs: number;
  /** This process, as the ledger names it. */
  instanceId: string;
  /** Told of a slot release that failed outright (the slot then expires on its own). */
  onReleaseFailed?: (err: unknown) => void;
  now?: () => number;
}

/** How long after its deadline a request may still be charged (its answer being made and sent). */
export const SETTLE_GRACE_MS = 10_000;
/**
 * A request's own statements are bounded well inside its deadline, also against a frozen
 * database: the reserve by this (or the time left, if less), so the request answers 500 in time.
 */
const RESERVE_LIMIT_MS = 3_000;
/**
 * A refund or slot release a request makes on its way out waits this long at most: past it the
 * write is retried in the background (deferred-writes.ts) and made by reconciliation in any case,
 * and either applies once, so the answer need not wait for it.
 */
const GIVE_BACK_LIMIT_MS = 1_000;

/**
 * Everything a request costs, in one place. Read top to bottom:
 *
 * 1. `reserve`: a key of an uncapped plan and no IP restriction is authenticated and debited,
 *    and the request's ledger row written, by one round trip (the debit is the authentication).
 *    Only when that changes nothing is the key read, to say why (403 unknown, revoked, restricted
 *    to other addresses, out of credits; 429 past its browser-failure budget), to roll its period
 *    over, or, for a restricted key, to admit its caller's address (before anything is taken)
 *    and, for a capped plan, to take a concurrency slot (409 when all are held), and then reserve.
 * 2. The request runs.
 * 3. Its reservation is settled once: `charge` for a 200, durable before the 200 is sent;
 *    `refund` otherwise, into the period the credits came from. A reservation nobody settles
 *    (the process was killed, the database was away) is refunded by reconciliation once it can
 *    no longer be charged (reconciler.ts).
 *
 * Periods are monthly from the key's creation; an ended period is closed (its balance kept for
 * the books) and the next opened with the full balance when the key is next used.
 */
export class Billing {
  private readonly now: () => number;

  constructor(private readonly options: BillingOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The key's account in its current period (rolled over if the last one ended): /v2/usage. A key
   * is known by its hash (hashApiKey); `clientAddress` is where the caller is (undefined: unknown,
   * which no IP restriction admits).
   */
  accountByHash(keyHash: string, clientAddress?: string): Promise<KeyAccount> {
    // Bounded like the reservation: a key checked before its request's body is read must not
    // hold the request for the pool's whole wait while the database is frozen.
    return boundedCall('the key lookup', RESERVE_LIMIT_MS, () => this.current(keyHash, this.now(), clientAddress));
  }

  /**
   * `deadlineAt`: when the request must be answered (epoch ms); `budgetMs` its whole time. Bounded
   * in all by RESERVE_LIMIT_MS (or the time left): a reservation given up on may still land, and
   * is then refunded by reconciliation. `clientAddress`: where the caller is (undefined: unknown,
   * which no IP restriction admits). `requestId`: the ledger id to use (a job item's); a new one when undefined.
   */
  reserve(
    keyHash: string, debit: Debit, request: RequestFacts, deadline: { at: number; budgetMs: number }, clientAddress?: string, requestId?: string,
  ): Promise<Reservation> {
    const limit = () => Math.max(250, Math.min(RESERVE_LIMIT_MS, deadline.at - this.now()));
    const facts = { ...request, requestId: requestId ?? randomUUID() };
    return boundedCall('the reservation', limit(), async () => {
      try {
        return await this.reserveUnbounded(keyHash, debit, facts, deadline, clientAddress, limit);
      } catch (err) {
        // A given id may have its row already: a job item's earlier attempt (billing/README.md),
        // whose credits, still held, may be what this one lacks.
        const again = err instanceof LedgerRowExistsError || (requestId !== undefined && err instanceof InsufficientCreditsError);
        if (!again) throw err;
        const before = await this.options.store.outcomeOf(facts.requestId, limit());
        if (before === 'charged') throw new AlreadyChargedError(facts.requestId);
        if (before === undefined) throw err;
        return this.reserveAgain(keyHash, debit, facts, deadline, clientAddress, limit);
      }
    });
  }

  /** A job item's next attempt: its row reserved again (billing-store.ts `reopen`), judged as a new request is. */
  private async reserveAgain(
    keyHash: string, debit: Debit, request: RequestFacts & { requestId: string }, deadline: { at: number; budgetMs: number }, clientAddress: string | undefined, limit: () => number,
  ): Promise<Reservation> {
    const entry: LedgerEntry = { ...request, instanceId: this.options.instanceId, settleLimitMs: deadline.budgetMs + SETTLE_GRACE_MS };
    // The balance is judged by `reopen` itself, after the row's own reservation is given back.
    const key = await this.current(keyHash, debit.at, clientAddress);
    const lease = await this.takeSlot(key, entry.requestId, deadline.budgetMs + this.options.leaseGraceMs);
    try {
      const result = await this.options.store.reopen(entry.requestId, key, debit, entry, limit());
      if (result === 'charged') throw new AlreadyChargedError(entry.requestId);
      if (result === 'insufficient') {
        const remaining = (await this.options.store.findKey(keyHash))?.creditsRemaining ?? 0;
        throw new InsufficientCreditsError(debit.cost, remaining, key.periodEnd).ofKey(key.id);
      }
      if (result === 'missing') throw new LedgerRowExistsError(entry.requestId);
    } catch (err) {
      if (lease) await this.release(lease);
      throw err;
    }
    return this.reservation(entry, debit, deadline.at, lease);
  }

  private async reserveUnbounded(
    keyHash: string, debit: Debit, request: RequestFacts & { requestId: string }, deadline: { at: number; budgetMs: number }, clientAddress: string | undefined, limit: () => number,
  ): Promise<Reservation> {
    const { store, budget } = this.options;
    const entry: LedgerEntry = { ...request, instanceId: this.options.instanceId, settleLimitMs: deadline.budgetMs + SETTLE_GRACE_MS };
    // A restricted key never matches here (the statement requires no restriction): it is read and judged below.
    if (await store.reserveByHash(keyHash, debit, budget, entry, limit())) return this.reservation(entry, debit, deadline.at, undefined);
    let key = await this.current(keyHash, debit.at, clientAddress);
    this.refuseIfOverLimits(key, debit);
    const lease = await this.takeSlot(key, entry.requestId, deadline.budgetMs + this.options.leaseGraceMs);
    try {
      if (!(await store.reserveById(key.id, key.periodEnd, debit, budget, entry, limit()))) {
        // Drained by a concurrent request, or the period just rolled over: read again, once.
        key = await this.current(keyHash, debit.at, clientAddress);
        this.refuseIfOverLimits(key, debit);
        if (!(await store.reserveById(key.id, key.periodEnd, debit, budget, entry, limit()))) {
          throw new InsufficientCreditsError(debit.cost, key.creditsRemaining, key.periodEnd).ofKey(key.id);
        }
      }
    } catch (err) {
      if (lease) await this.release(lease);
      throw err;
    }
    return this.reservation(entry, debit, deadline.at, lease);
  }

  /** Gives what waits for the database a last try; the ledger holds it anyway. */
  close(): Promise<void> {
    return this.options.deferred.close();
  }

  /**
   * The active key, in the period containing `at`; InvalidKeyError for an unknown or revoked one,
   * IpRestrictedError when its caller is not where it may be used from. The restriction is judged
   * before anything else the key could tell (its balance, its budget) or have done (a rollover).
   */
  private async current(keyHash: string, at: number, clientAddress: string | undefined): Promise<KeyAccount> {
    const { store } = this.options;
    const key = await store.findKey(keyHash);
    if (!key || key.revokedAt !== null) throw new InvalidKeyError();
    refuseIfRestricted(key, clientAddress);
    if (at < key.periodEnd) return key;
    // Conditional on the old period, so that concurrent requests (or servers) roll it only once.
    await store.rollPeriod(key.id, key.periodEnd, currentPeriod(key.periodStart, key.periodEnd, at), this.now());
    const rolled = await store.findKey(keyHash);
    if (!rolled || rolled.revokedAt !== null) throw new InvalidKeyError();
    return rolled;
  }

  private refuseIfOverLimits(key: KeyAccount, debit: Debit): void {
    if (key.creditsRemaining < debit.cost) throw new InsufficientCreditsError(debit.cost, key.creditsRemaining, key.periodEnd).ofKey(key.id);
    const { budget } = this.options;
    if (pastBudget(key, debit, budget)) {
      throw new BrowserBudgetExceededError(key.browserFailures, key.browserAttempts, secondsUntilWindowEnds(key, debit.at, budget)).ofKey(key.id);
    }
  }

  /** A slot of a capped plan, held for `ttlMs` at most (a dead server's slot expires on its own). */
  private async takeSlot(key: KeyAccount, requestId: string, ttlMs: number): Promise<Lease | undefined> {
    if (key.maxConcurrency === null) return undefined;
    for (let slot = 0; slot < key.maxConcurrency; slot++) {
      const lease = { apiKeyId: key.id, slot, leaseId: requestId };
      const now = this.now();
      if (await this.options.store.takeSlot(lease, now + ttlMs, now)) return lease;
    }
    throw new ConcurrencyLimitError(key.maxConcurrency).ofKey(key.id);
  }

  private reservation(entry: LedgerEntry, debit: Debit, deadlineAt: number, lease: Lease | undefined): Reservation {
    const { store, deferred } = this.options;
    return openReservation({ store, deferred, now: this.now, release: (held) => this.release(held), giveBackLimitMs: GIVE_BACK_LIMIT_MS }, entry, debit, deadlineAt, lease);
  }

  private async release(lease: Lease): Promise<void> {
    try {
      const what = `the release of slot ${lease.slot} of key #${lease.apiKeyId}`;
      await boundedCall(what, GIVE_BACK_LIMIT_MS, () => this.options.deferred.run(what, () => this.options.store.releaseSlot(lease, GIVE_BACK_LIMIT_MS), { idempotent: true }));
    } catch (err) {
      this.options.onReleaseFailed?.(err);
    }
  }

}

/** The key's allow list, if it has one, must admit the caller (an unknown caller is admitted by none). */
function refuseIfRestricted(key: KeyAccount, clientAddress: string | undefined): void {
  if (key.allowedIps.length === 0) return;
  if (clientAddress === undefined || !IpAllowList.of(key.allowedIps).allows(clientAddress)) throw new IpRestrictedError(clientAddress ?? 'unknown').ofKey(key.id);
}
