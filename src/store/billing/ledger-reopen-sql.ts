import type { Knex } from 'knex';
import type { Debit, LedgerEntry, ReopenResult } from '../../billing/billing-store.js';
import { MYSQL_NOW_MS } from './mysql-procedures.js';

interface LedgerRow {
  api_key_id: number;
  period_end: number | string;
  cost: number;
  outcome: 'reserved' | 'charged' | 'refunded';
}

/**
 * A job item's ledger row, taken again by its next attempt (billing/billing-store.ts states the
 * contract). One transaction with the row locked: a reconciler refunding the same row meanwhile
 * waits, and then finds it reserved anew by a live attempt.
 */
export function reopenLedgerRow(
  knex: Knex, requestId: string, key: { id: number; periodEnd: number }, debit: Debit, entry: LedgerEntry, timeoutMs: number | undefined,
): Promise<ReopenResult> {
  const mysql = knex.client.config.client === 'mysql2';
  const limited = <T extends Knex.QueryBuilder | Knex.Raw>(q: T): T => (timeoutMs === undefined ? q : (q.timeout(Math.max(1, Math.ceil(timeoutMs))) as T));
  return knex.transaction(async (trx) => {
    const select = trx('request_ledger').select('api_key_id', 'period_end', 'cost', 'outcome').where({ request_id: requestId });
    const row = (await limited(mysql ? select.forUpdate() : select).first()) as LedgerRow | undefined;
    if (!row) return 'missing';
    if (row.outcome === 'charged') return 'charged';
    if (row.outcome === 'reserved') {
      // The attempt that reserved it died holding it: its credits go back before the new debit.
      await limited(trx.raw('UPDATE api_keys SET credits_remaining = credits_remaining + ? WHERE id = ? AND period_end = ?', [row.cost, row.api_key_id, row.period_end]));
      await limited(trx.raw('UPDATE key_periods SET credits_remaining = credits_remaining + ? WHERE api_key_id = ? AND period_end = ?', [row.cost, row.api_key_id, row.period_end]));
    }
    const debited = await limited(
      trx('api_keys').where({ id: key.id, period_end: key.periodEnd }).whereNull('revoked_at').andWhere('credits_remaining', '>=', debit.cost)
        .decrement('credits_remaining', debit.cost),
    );
    if (Number(debited) !== 1) {
      // Nothing is reserved any more: the row says so, and the item fails for want of credits.
      if (row.outcome === 'reserved') await limited(trx('request_ledger').where({ request_id: requestId }).update({ outcome: 'refunded', settled_by: 'request', ended_at: Date.now() }));
      return 'insufficient';
    }
    await limited(trx('request_ledger').where({ request_id: requestId }).update({
      api_key_id: key.id, period_end: key.periodEnd, instance_id: entry.instanceId, operation: entry.operation, engine: entry.engine,
      proxy_type: entry.proxyType, proxy_country: entry.proxyCountry, target_host: entry.targetHost, cost: debit.cost,
      // Outside the browser failure budget: the budget judges a request's first attempt only.
      browser: 0, outcome: 'reserved', settled_by: null, ended_at: null, status_sent: null, page_status: null, duration_ms: null, failure: null,
      started_at: debit.at, reserved_at_db: mysql ? trx.raw(MYSQL_NOW_MS) : Date.now(), settle_limit_ms: entry.settleLimitMs,
    }));
    return 'reopened';
  });
}
