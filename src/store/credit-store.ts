import type { Knex } from 'knex';
import { retryingLostLocks } from './deadlock-retry.js';
import { deferredWritesOf, type DeferredWrites } from './deferred-writes.js';

/**
 * The hot path's one statement: authenticates an active key of an uncapped plan by its hash and
 * takes the credits from its current period, or changes nothing. Constant text, so the driver's
 * statement is prepared once (see database.ts).
 */
const DEBIT_UNCAPPED = `UPDATE api_keys SET credits_remaining = credits_remaining - ?
  WHERE key_hash = ? AND revoked_at IS NULL AND max_concurrency IS NULL AND period_start <= ? AND period_end > ? AND credits_remaining >= ?`;
const REFUND_UNCAPPED = `UPDATE api_keys SET credits_remaining = CASE WHEN credits_remaining + ? > credits_total THEN credits_total ELSE credits_remaining + ? END
  WHERE key_hash = ? AND period_start <= ? AND period_end > ?`;

/** Rows an UPDATE changed: better-sqlite3 answers `{ changes }`, mysql2 `[{ affectedRows }, …]`. */
function changedRows(result: unknown): number {
  const first = Array.isArray(result) ? result[0] : result;
  const r = first as { changes?: number; affectedRows?: number };
  return Number(r.changes ?? r.affectedRows ?? 0);
}

/**
 * Credits move only through single conditional UPDATEs, so the balance is exact under any
 * concurrency and across processes, and never goes below zero. A refund that meets an
 * unavailable database is not lost: it is deferred and retried until the database takes it.
 */
export class CreditStore {
  constructor(
    private readonly knex: Knex,
    private readonly deferred: DeferredWrites = deferredWritesOf(knex),
  ) {}

  /**
   * One round trip for a request of an uncapped key: true when the key hashed `keyHash` is
   * active, uncapped, in the period containing `at`, and had `cost` credits (now taken). False
   * says only that one of those did not hold: the caller reads the key to find out which.
   */
  async debitUncapped(keyHash: string, cost: number, at: number): Promise<boolean> {
    try {
      return changedRows(await retryingLostLocks(() => this.knex.raw(DEBIT_UNCAPPED, [cost, keyHash, at, at, cost]))) === 1;
    } catch (err) {
      this.deferred.reportIfUncertain(`a debit of ${cost} credits from the key hashed ${keyHash.slice(0, 12)}… (its request fails)`, err);
      throw err;
    }
  }

  /**
   * Gives back a debitUncapped into the period it was taken from (the one containing `at`).
   * Resolves once done, or once deferred because the database is unavailable.
   */
  async refundUncapped(keyHash: string, cost: number, at: number): Promise<void> {
    if (cost === 0) return;
    await this.deferred.run(`a refund of ${cost} credits to the key hashed ${keyHash.slice(0, 12)}…`, () =>
      retryingLostLocks(() => this.knex.raw(REFUND_UNCAPPED, [cost, cost, keyHash, at, at])),
    );
  }

  /**
   * Takes `cost` credits from the key's period ending at `periodEnd`, if it still has them.
   * False when it has not (or the period has just been reset: the caller re-reads the key).
   */
  async reserve(apiKeyId: number, cost: number, periodEnd: number): Promise<boolean> {
    if (cost === 0) return true;
    try {
      const changed = await retryingLostLocks(() =>
        this.knex('api_keys')
          .where({ id: apiKeyId, period_end: periodEnd })
          .whereNull('revoked_at')
          .andWhere('credits_remaining', '>=', cost)
          .decrement('credits_remaining', cost),
      );
      return changed === 1;
    } catch (err) {
      this.deferred.reportIfUncertain(`a debit of ${cost} credits from key #${apiKeyId} (its request fails)`, err);
      throw err;
    }
  }

  /**
   * Gives a reservation back after a failed request, only into the period it was taken from:
   * after a reset the balance is already full, and a refund would exceed the plan. Resolves once
   * done, or once deferred because the database is unavailable.
   */
  async refund(apiKeyId: number, cost: number, periodEnd: number): Promise<void> {
    if (cost === 0) return;
    await this.deferred.run(`a refund of ${cost} credits to key #${apiKeyId}`, () =>
      retryingLostLocks(() =>
        this.knex('api_keys')
          .where({ id: apiKeyId, period_end: periodEnd })
          .update({
            credits_remaining: this.knex.raw('CASE WHEN credits_remaining + ? > credits_total THEN credits_total ELSE credits_remaining + ? END', [
              cost,
              cost,
            ]),
          }),
      ),
    );
  }
}
