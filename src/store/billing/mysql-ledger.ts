import type { Knex } from 'knex';
import type { BrowserFailureBudget, Debit, LedgerEntry, Settlement } from '../../billing/billing-store.js';
import { changedRows } from '../changed-rows.js';
import { MYSQL_NOW_MS } from './mysql-procedures.js';
import { budgetBindings } from './budget-bindings.js';

const CHARGE = `UPDATE request_ledger SET outcome = 'charged', settled_by = 'request', ended_at = ?, status_sent = ?, page_status = ?,
  duration_ms = ?, proxy_country = COALESCE(?, proxy_country)
  WHERE request_id = ? AND outcome = 'reserved' AND ${MYSQL_NOW_MS} - reserved_at_db < LEAST(?, settle_limit_ms)`;

/** The one row a procedure answers: `[[{ reserved: 1 }], okPacket]` from mysql2. */
function answered(result: unknown, column: string): boolean {
  const sets = (Array.isArray(result) ? result[0] : []) as unknown[];
  const rows = (Array.isArray(sets) ? sets[0] : []) as Array<Record<string, unknown>>;
  return Number(rows?.[0]?.[column] ?? 0) === 1;
}

/**
 * The ledger's writes on MySQL, one round trip each: the reservation and the refund are stored
 * procedures (mysql-procedures.ts), atomic and rolled back whole on any error; the charge is one
 * statement. Every time limit is measured on the database's clock.
 */
/** A statement's own time limit, when its caller gives one (else the connection's default applies). */
function limited(timeoutMs: number | undefined): { timeout?: number } {
  return timeoutMs === undefined ? {} : { timeout: Math.max(1, Math.ceil(timeoutMs)) };
}

export class MysqlLedger {
  constructor(private readonly knex: Knex) {}

  async reserve(key: { hash: string } | { id: number; periodEnd: number }, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry, timeoutMs?: number): Promise<boolean> {
    const b = budgetBindings(debit.at, budget);
    const byHash = 'hash' in key;
    const result = await this.knex.raw('CALL scrapegate_reserve(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      entry.requestId, byHash ? key.hash : null, byHash ? null : key.id, byHash ? null : key.periodEnd,
      debit.cost, debit.browser ? 1 : 0, debit.at, b.expired, b.from, b.allowance,
      entry.settleLimitMs, entry.instanceId, entry.operation, entry.engine, entry.proxyType, entry.proxyCountry, entry.targetHost,
    ]).options(limited(timeoutMs));
    return answered(result, 'reserved');
  }

  async charge(requestId: string, s: Settlement, windowMs: number, timeoutMs: number): Promise<boolean> {
    const bindings = [s.endedAt, s.status, s.pageStatus, s.durationMs, s.proxyCountry, requestId, windowMs];
    return changedRows(await this.knex.raw(CHARGE, bindings).options({ timeout: Math.max(1, Math.ceil(timeoutMs)) })) === 1;
  }

  async refund(requestId: string, s: Settlement, countFailure: boolean, settledBy: string, timeoutMs?: number): Promise<boolean> {
    const result = await this.knex.raw('CALL scrapegate_refund(?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      requestId, s.endedAt, s.status, s.pageStatus, s.durationMs, s.failure, countFailure ? 1 : 0, settledBy, s.proxyCountry,
    ]).options(limited(timeoutMs));
    return answered(result, 'refunded');
  }
}
