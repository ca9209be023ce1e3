import type { Knex } from 'knex';
import type { BrowserFailureBudget, Debit, LedgerEntry, Settlement } from '../../billing/billing-store.js';
import { budgetBindings } from './budget-bindings.js';
import { SqliteGroupCommit } from './sqlite-group-commit.js';

/**
 * The budget counting of a budgeted debit (billing/browser-budget.ts states the rule); SQLite
 * reads every column's old value in a statement, so the order of assignments is free.
 */
const COUNT_ATTEMPT = `browser_attempts = CASE WHEN browser_window_start <= ? THEN 1 ELSE browser_attempts + 1 END,
  browser_failures = CASE WHEN browser_window_start <= ? THEN 0 ELSE browser_failures END,
  browser_window_start = CASE WHEN browser_window_start <= ? THEN ? ELSE browser_window_start END`;
const WITHIN_BUDGET = `(browser_window_start <= ? OR browser_failures < ? OR browser_failures * 2 < browser_attempts)`;
/** The hot path's key: uncapped and unrestricted (billing.ts reserves the others by id, once judged). */
const BY_HASH = `key_hash = ? AND revoked_at IS NULL AND max_concurrency IS NULL AND allowed_ips IS NULL AND period_start <= ? AND period_end > ? AND credits_remaining >= ?`;
const BY_ID = `id = ? AND period_end = ? AND revoked_at IS NULL AND credits_remaining >= ?`;
const DEBIT = (where: string, budgeted: boolean) =>
  budgeted
    ? `UPDATE api_keys SET credits_remaining = credits_remaining - ?, ${COUNT_ATTEMPT} WHERE ${where} AND ${WITHIN_BUDGET}`
    : `UPDATE api_keys SET credits_remaining = credits_remaining - ? WHERE ${where}`;
const INSERT_ROW = (where: string) => `INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type,
  proxy_country, target_host, cost, browser, outcome, started_at, reserved_at_db, settle_limit_ms)
  SELECT ?, id, period_end, ?, ?, ?, ?, ?, ?, ?, ?, 'reserved', ?, ?, ? FROM api_keys WHERE ${where}`;
const CHARGE = `UPDATE request_ledger SET outcome = 'charged', settled_by = 'request', ended_at = ?, status_sent = ?, page_status = ?,
  duration_ms = ?, proxy_country = COALESCE(?, proxy_country)
  WHERE request_id = ? AND outcome = 'reserved' AND ? - reserved_at_db < MIN(?, settle_limit_ms)`;

/**
 * The ledger's writes on SQLite: each a transaction, which costs no round trip in process. The
 * database's clock is this process's, so "now" is bound from here.
 */
export class SqliteLedger {
  private readonly group: SqliteGroupCommit;

  constructor(private readonly knex: Knex) {
    this.group = new SqliteGroupCommit(knex);
  }

  /**
   * The debit and the ledger row, all or nothing, as native prepared statements (a knex
   * transaction cost more CPU than the debit itself), committed together with the other writes
   * of the turn (sqlite-group-commit.ts).
   */
  reserve(key: { hash: string } | { id: number; periodEnd: number }, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry): Promise<boolean> {
    const { cost, budgeted, at } = debit;
    const b = budgetBindings(at, budget);
    const byHash = 'hash' in key;
    const where = byHash ? BY_HASH : BY_ID;
    const keyBindings = byHash ? [key.hash, at, at, cost] : [key.id, key.periodEnd, cost];
    const debitBindings = budgeted ? [cost, b.expired, b.expired, b.expired, at, ...keyBindings, b.from, b.allowance] : [cost, ...keyBindings];
    const rowBindings = [
      entry.requestId, entry.instanceId, entry.operation, entry.engine, entry.proxyType, entry.proxyCountry, entry.targetHost,
      cost, budgeted ? 1 : 0, at, Date.now(), entry.settleLimitMs, byHash ? key.hash : key.id,
    ];
    const [debitSql, rowSql] = [DEBIT(where, budgeted), INSERT_ROW(byHash ? 'key_hash = ?' : 'id = ?')];
    return this.group.run((conn) => {
      if (conn.prepare(debitSql).run(...debitBindings).changes !== 1) return false;
      conn.prepare(rowSql).run(...rowBindings);
      return true;
    });
  }

  /** One statement, committed with whatever else the turn brought (sqlite-group-commit.ts). */
  charge(requestId: string, s: Settlement, windowMs: number): Promise<boolean> {
    return this.group.run((conn) => conn.prepare(CHARGE).run(s.endedAt, s.status, s.pageStatus, s.durationMs, s.proxyCountry, requestId, Date.now(), windowMs).changes === 1);
  }

  refund(requestId: string, s: Settlement, countFailure: boolean, settledBy: string): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const row = (await trx('request_ledger').where({ request_id: requestId, outcome: 'reserved' }).first()) as
        | { api_key_id: number; period_end: number | string; cost: number; started_at: number | string; browser: number }
        | undefined;
      if (!row) return false;
      await trx('request_ledger').where({ request_id: requestId }).update({
        outcome: 'refunded', settled_by: settledBy, ended_at: s.endedAt, status_sent: s.status, page_status: s.pageStatus,
        duration_ms: s.durationMs, failure: s.failure, proxy_country: s.proxyCountry ?? trx.ref('proxy_country'),
      });
      const count = countFailure && Number(row.browser) === 1 ? 1 : 0;
      await trx.raw(
        `UPDATE api_keys SET credits_remaining = credits_remaining + ?,
          browser_failures = CASE WHEN ? = 1 AND browser_window_start <= ? THEN browser_failures + 1 ELSE browser_failures END
          WHERE id = ? AND period_end = ?`,
        [row.cost, count, row.started_at, row.api_key_id, row.period_end],
      );
      await trx.raw('UPDATE key_periods SET credits_remaining = credits_remaining + ? WHERE api_key_id = ? AND period_end = ?', [row.cost, row.api_key_id, row.period_end]);
      await trx('concurrency_leases').where({ lease_id: requestId }).delete();
      return true;
    });
  }
}
