import type { Knex } from 'knex';
import type { Discrepancy, LedgerBooks } from '../../billing/billing-store.js';
import type { Database } from '../database.js';
import { MYSQL_NOW_MS } from './mysql-procedures.js';

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a UTC day → its first and last-plus-one millisecond. */
export function dayBounds(day: string): { from: number; to: number } {
  const from = Date.parse(`${day}T00:00:00.000Z`);
  return { from, to: from + DAY_MS };
}

interface TotalsRow {
  api_key_id: number;
  period_end: number | string;
  requests: number | string;
  charged: number | string;
  refunded: number | string;
  status_200: number | string;
  status_404: number | string;
  status_422: number | string;
  status_423: number | string;
  status_5xx: number | string;
  status_other: number | string;
  engine_plain: number | string;
  engine_browser: number | string;
  credits: number | string;
  duration_ms_total: number | string;
}

/** A group of ledger rows totalled as usage_daily keeps them (the admin API's live days read the same). */
export const LEDGER_TOTALS = `COUNT(*) AS requests,
    SUM(CASE WHEN outcome = 'charged' THEN 1 ELSE 0 END) AS charged,
    SUM(CASE WHEN outcome = 'refunded' THEN 1 ELSE 0 END) AS refunded,
    SUM(CASE WHEN status_sent = 200 THEN 1 ELSE 0 END) AS status_200,
    SUM(CASE WHEN status_sent = 404 THEN 1 ELSE 0 END) AS status_404,
    SUM(CASE WHEN status_sent = 422 THEN 1 ELSE 0 END) AS status_422,
    SUM(CASE WHEN status_sent = 423 THEN 1 ELSE 0 END) AS status_423,
    SUM(CASE WHEN status_sent >= 500 THEN 1 ELSE 0 END) AS status_5xx,
    SUM(CASE WHEN status_sent IS NULL OR status_sent NOT IN (200, 404, 422, 423) AND status_sent < 500 THEN 1 ELSE 0 END) AS status_other,
    SUM(CASE WHEN engine = 'plain' THEN 1 ELSE 0 END) AS engine_plain,
    SUM(CASE WHEN engine = 'plain' THEN 0 ELSE 1 END) AS engine_browser,
    SUM(CASE WHEN outcome = 'charged' THEN cost ELSE 0 END) AS credits,
    SUM(COALESCE(duration_ms, 0)) AS duration_ms_total`;

const TOTALS = `SELECT api_key_id, period_end, ${LEDGER_TOTALS}
  FROM request_ledger WHERE started_at >= ? AND started_at < ? GROUP BY api_key_id, period_end`;

/**
 * The ledger's upkeep and books in SQL. Everything here runs in the background or from the CLI,
 * never on a request's path; deletes go in small batches so that no lock is held for long.
 */
export class SqlLedgerBooks implements LedgerBooks {
  private readonly knex: Knex;

  constructor(private readonly db: Database) {
    this.knex = db.knex;
  }

  async staleReservations(marginMs: number, limit: number): Promise<string[]> {
    // SQLite's clock is this process's; MySQL's is its own, so instances' clocks never matter.
    const now = this.db.dialect === 'mysql' ? this.knex.raw(MYSQL_NOW_MS) : Date.now();
    const rows = (await this.knex('request_ledger')
      .select('request_id')
      .where({ outcome: 'reserved' })
      .andWhere(this.knex.raw('reserved_at_db + settle_limit_ms + ? < ?', [marginMs, now]))
      .orderBy('reserved_at_db')
      .limit(limit)) as Array<{ request_id: string }>;
    return rows.map((r) => r.request_id);
  }

  async releaseSettledSlots(expiredForMs: number): Promise<number> {
    const settled = await this.knex('concurrency_leases')
      .whereIn('lease_id', this.knex('request_ledger').select('request_id').whereIn('request_id', this.knex('concurrency_leases').select('lease_id')).whereNot({ outcome: 'reserved' }))
      .delete();
    // Expiry is stamped on the taking instance's clock: the margin keeps a skewed clock from
    // deleting a lease another instance still counts as held.
    const expired = await this.knex('concurrency_leases').where('expires_at', '<', Date.now() - expiredForMs).delete();
    return settled + expired;
  }

  async rollupDay(day: string, at: number): Promise<void> {
    const { from, to } = dayBounds(day);
    await this.knex.transaction(async (trx) => {
      const groups = (await trx.raw(TOTALS, [from, to]).then((r: unknown) => (this.db.dialect === 'mysql' ? (r as unknown[])[0] : r))) as TotalsRow[];
      await trx('usage_daily').where({ day }).delete();
      for (const g of groups) {
        const n = Number(g.requests);
        const p95 = (await trx('request_ledger')
          .select('duration_ms')
          .where({ api_key_id: g.api_key_id, period_end: g.period_end })
          .andWhere('started_at', '>=', from)
          .andWhere('started_at', '<', to)
          .orderByRaw('COALESCE(duration_ms, 0)')
          .offset(Math.floor(0.95 * (n - 1)))
          .first()) as { duration_ms: number | null } | undefined;
        await trx('usage_daily').insert({
          api_key_id: g.api_key_id, day, period_end: g.period_end, requests: n, charged: g.charged, refunded: g.refunded,
          status_200: g.status_200, status_404: g.status_404, status_422: g.status_422, status_423: g.status_423, status_5xx: g.status_5xx,
          status_other: g.status_other, engine_plain: g.engine_plain, engine_browser: g.engine_browser, credits: g.credits,
          duration_ms_total: g.duration_ms_total, duration_ms_p95: Number(p95?.duration_ms ?? 0), updated_at: at,
        });
      }
    });
  }

  async prune(before: number, limit: number): Promise<number> {
    // Only rows whose day is totalled for good: their credits live on in usage_daily.
    const through = await this.mark('totalled_through');
    if (!through) return 0;
    const cutoff = Math.min(before, dayBounds(through).to);
    const settled = this.knex('request_ledger').where('started_at', '<', cutoff).whereNot({ outcome: 'reserved' });
    if (this.db.dialect === 'mysql') {
      const result = await this.knex.raw(`DELETE FROM request_ledger WHERE started_at < ? AND outcome <> 'reserved' ORDER BY id LIMIT ?`, [cutoff, limit]);
      return Number((result as Array<{ affectedRows?: number }>)[0]?.affectedRows ?? 0);
    }
    return this.knex('request_ledger').whereIn('id', settled.clone().select('id').limit(limit)).delete();
  }

  async mark(name: string): Promise<string | undefined> {
    const row = (await this.knex('upkeep_state').where({ name }).first()) as { value: string } | undefined;
    return row?.value;
  }

  async setMark(name: string, value: string): Promise<void> {
    const updated = await this.knex('upkeep_state').where({ name }).update({ value });
    if (updated === 0) await this.knex('upkeep_state').insert({ name, value });
  }

  /**
   * For every key and period since the ledger began: the credits consumed (total minus what
   * remains, current or closed) against the costs of its charged and still reserved requests,
   * from the daily totals for the days totalled for good and the ledger for the rest. Read in
   * one transaction, so that requests in flight meanwhile cannot tip the balance.
   */
  async discrepancies(): Promise<Discrepancy[]> {
    return this.knex.transaction(async (trx) => {
      const since = Number((await trx('upkeep_state').where({ name: 'ledger_since' }).first())?.value ?? 0);
      const through = (await trx('upkeep_state').where({ name: 'totalled_through' }).first())?.value as string | undefined;
      const liveFrom = through ? dayBounds(through).to : 0;
      const spent = new Map<string, number>();
      const add = (key: number, periodEnd: number, credits: number) => spent.set(`${key}|${periodEnd}`, (spent.get(`${key}|${periodEnd}`) ?? 0) + credits);
      const daily = (await trx('usage_daily').select('api_key_id', 'period_end').sum({ credits: 'credits' }).where('day', '<=', through ?? '').groupBy('api_key_id', 'period_end')) as Array<{
        api_key_id: number;
        period_end: number | string;
        credits: number | string;
      }>;
      for (const d of daily) add(Number(d.api_key_id), Number(d.period_end), Number(d.credits));
      const live = (await trx('request_ledger')
        .select('api_key_id', 'period_end')
        .sum({ credits: 'cost' })
        .where('started_at', '>=', liveFrom)
        .whereIn('outcome', ['charged', 'reserved'])
        .groupBy('api_key_id', 'period_end')) as Array<{ api_key_id: number; period_end: number | string; credits: number | string }>;
      for (const l of live) add(Number(l.api_key_id), Number(l.period_end), Number(l.credits));
      const periods = (await trx.raw(
        `SELECT id AS api_key_id, key_prefix AS prefix, period_start, period_end, credits_total, credits_remaining FROM api_keys WHERE period_start >= ?
         UNION ALL
         SELECT p.api_key_id, k.key_prefix AS prefix, p.period_start, p.period_end, p.credits_total, p.credits_remaining
           FROM key_periods p JOIN api_keys k ON k.id = p.api_key_id WHERE p.period_start >= ?`,
        [since, since],
      ).then((r: unknown) => (this.db.dialect === 'mysql' ? (r as unknown[])[0] : r))) as Array<{
        api_key_id: number;
        prefix: string;
        period_start: number | string;
        period_end: number | string;
        credits_total: number | string;
        credits_remaining: number | string;
      }>;
      const out: Discrepancy[] = [];
      for (const p of periods) {
        const consumed = Number(p.credits_total) - Number(p.credits_remaining);
        const ledger = spent.get(`${Number(p.api_key_id)}|${Number(p.period_end)}`) ?? 0;
        if (consumed !== ledger) {
          out.push({ apiKeyId: Number(p.api_key_id), prefix: p.prefix, periodStart: Number(p.period_start), periodEnd: Number(p.period_end), consumed, ledger });
        }
      }
      return out;
    });
  }
}
