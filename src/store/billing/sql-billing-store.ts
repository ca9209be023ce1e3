import type { Knex } from 'knex';
import type { BillingStore, BrowserFailureBudget, Debit, KeyAccount, Lease, LedgerEntry, LedgerOutcome, ReopenResult, Settlement } from '../../billing/billing-store.js';
import { LedgerRowExistsError } from '../../billing/ledger-row-errors.js';
import { reopenLedgerRow } from './ledger-reopen-sql.js';
import type { Database } from '../database.js';
import { retryingLostLocks } from '../deadlock-retry.js';
import { isDuplicateKey } from '../driver-errors.js';
import { keyAccountOf, type KeyRow } from '../../accounts/key-row.js';
import { MysqlLedger } from './mysql-ledger.js';
import { SqliteLedger } from './sqlite-ledger.js';


/** A given request id already has its row (a job item run twice at once): said in the billing's words. */
function rowOnce(entry: LedgerEntry, write: Promise<boolean>): Promise<boolean> {
  return write.catch((err: unknown) => {
    throw isDuplicateKey(err) ? new LedgerRowExistsError(entry.requestId) : err;
  });
}

/**
 * The billing's SQL on SQLite and MySQL. Credits move only together with a ledger row (reserved,
 * then charged or refunded once), so a key's balance and its ledger agree under any concurrency,
 * across processes and through any crash. Concurrency slots are rows keyed (api_key_id, slot),
 * taken by one atomic INSERT, named by their request, each with its own expiry.
 */
export class SqlBillingStore implements BillingStore {
  private readonly knex: Knex;
  private readonly ledger: MysqlLedger | SqliteLedger;

  constructor(db: Database) {
    this.knex = db.knex;
    this.ledger = db.dialect === 'mysql' ? new MysqlLedger(db.knex) : new SqliteLedger(db.knex);
  }

  reserveByHash(keyHash: string, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry, timeoutMs?: number): Promise<boolean> {
    return rowOnce(entry, retryingLostLocks(() => this.ledger.reserve({ hash: keyHash }, debit, budget, entry, timeoutMs)));
  }

  reserveById(apiKeyId: number, periodEnd: number, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry, timeoutMs?: number): Promise<boolean> {
    return rowOnce(entry, retryingLostLocks(() => this.ledger.reserve({ id: apiKeyId, periodEnd }, debit, budget, entry, timeoutMs)));
  }

  reopen(requestId: string, key: { id: number; periodEnd: number }, debit: Debit, entry: LedgerEntry, timeoutMs?: number): Promise<ReopenResult> {
    return retryingLostLocks(() => reopenLedgerRow(this.knex, requestId, key, debit, entry, timeoutMs));
  }

  charge(requestId: string, settlement: Settlement, windowMs: number, timeoutMs: number): Promise<boolean> {
    return retryingLostLocks(() => this.ledger.charge(requestId, settlement, windowMs, timeoutMs));
  }

  refund(requestId: string, settlement: Settlement, countFailure: boolean, settledBy: 'request' | 'reconcile', timeoutMs?: number): Promise<boolean> {
    return retryingLostLocks(() => this.ledger.refund(requestId, settlement, countFailure, settledBy, timeoutMs));
  }

  async outcomeOf(requestId: string, timeoutMs: number): Promise<LedgerOutcome | undefined> {
    const row = await this.knex('request_ledger').select('outcome').where({ request_id: requestId }).first().options({ timeout: timeoutMs });
    return (row as { outcome?: LedgerOutcome } | undefined)?.outcome;
  }

  /** By the current secret, or by a previous one still in its grace period (rotation). */
  async findKey(keyHash: string): Promise<KeyAccount | undefined> {
    const row =
      (await this.knex<KeyRow>('api_keys').where({ key_hash: keyHash }).first()) ??
      (await this.knex<KeyRow>('api_keys').where({ previous_key_hash: keyHash }).andWhere('previous_key_expires_at', '>', Date.now()).first());
    return row ? keyAccountOf(row) : undefined;
  }

  /** The closed period's balance is kept (key_periods), for the books and its late refunds. */
  async rollPeriod(apiKeyId: number, from: number, next: { start: number; end: number }, at: number): Promise<void> {
    await retryingLostLocks(() =>
      this.knex.transaction(async (trx) => {
        const key = (await trx<KeyRow>('api_keys').where({ id: apiKeyId, period_end: from }).forUpdate().first()) as KeyRow | undefined;
        if (!key) return;
        await trx('key_periods').insert({
          api_key_id: apiKeyId, period_start: key.period_start, period_end: key.period_end,
          credits_total: key.credits_total, credits_remaining: key.credits_remaining, closed_at: at,
        });
        await trx('api_keys').where({ id: apiKeyId, period_end: from }).update({ period_start: next.start, period_end: next.end, credits_remaining: trx.ref('credits_total') });
      }),
    );
  }

  async takeSlot(lease: Lease, expiresAt: number, now: number): Promise<boolean> {
    const row = { api_key_id: lease.apiKeyId, slot: lease.slot, lease_id: lease.leaseId, expires_at: expiresAt };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await retryingLostLocks(() => this.knex('concurrency_leases').insert(row));
        return true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      // The slot is held; take it over only if its holder's lease has expired.
      const cleared = await retryingLostLocks(() =>
        this.knex('concurrency_leases').where({ api_key_id: lease.apiKeyId, slot: lease.slot }).andWhere('expires_at', '<', now).delete(),
      );
      if (cleared === 0) return false;
    }
    return false;
  }

  async releaseSlot(lease: Lease, timeoutMs?: number): Promise<void> {
    // mysql2's own limit (options.timeout) ends the connection, so nothing waits behind a hung statement.
    const limit = timeoutMs === undefined ? {} : { timeout: Math.max(1, Math.ceil(timeoutMs)) };
    await retryingLostLocks(() => this.knex('concurrency_leases').where({ api_key_id: lease.apiKeyId, slot: lease.slot, lease_id: lease.leaseId }).delete().options(limit));
  }
}
