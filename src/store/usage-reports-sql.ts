import type { Knex } from 'knex';
import type { Database } from './database.js';
import { dayBounds, LEDGER_TOTALS } from './billing/ledger-books-sql.js';
import { UsageRefusalsSql } from './usage-refusals-sql.js';
import type { AccountHistoryPort, DayTotals, LedgerRecord } from '../accounts/account-ports.js';
import type { AuditRecord } from '../accounts/audit-entry.js';
import { auditPage } from './audit-log.js';

const DAY_MS = 86_400_000;


type Row = Record<string, number | string | null>;
const n = (v: unknown) => Number(v ?? 0);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function totalsOf(day: string, r: Row, p95: number): DayTotals {
  return {
    day, requests: n(r.requests), refused: 0, charged: n(r.charged), refunded: n(r.refunded),
    status200: n(r.status_200), status403: 0, status404: n(r.status_404), status409: 0, status422: n(r.status_422), status423: n(r.status_423), status5xx: n(r.status_5xx), statusOther: n(r.status_other),
    enginePlain: n(r.engine_plain), engineBrowser: n(r.engine_browser), credits: n(r.credits), durationMsTotal: n(r.duration_ms_total), durationMsP95: p95,
  };
}

/**
 * Per-key reports over the ledger: daily totals (usage_daily for the days totalled for good, the
 * ledger itself for the days since, so today is exact) and the ledger's rows, newest first.
 */
export class UsageReportsSql implements AccountHistoryPort {
  private readonly knex: Knex;
  private readonly refusals: UsageRefusalsSql;

  constructor(private readonly db: Database) {
    this.knex = db.knex;
    this.refusals = new UsageRefusalsSql(db);
  }

  /** `from`..`to` inclusive, UTC `YYYY-MM-DD`; only days with requests or refusals, oldest first. */
  async daily(apiKeyId: number, from: string, to: string): Promise<DayTotals[]> {
    const days = new Map((await this.ledgerDays(apiKeyId, from, to)).map((d) => [d.day, d]));
    for (const r of await this.refusals.byDay(apiKeyId, from, to)) {
      let day = days.get(r.day);
      if (!day) days.set(r.day, (day = totalsOf(r.day, {}, 0)));
      day.refused += r.count;
      if (r.status === 403) day.status403 += r.count;
      else if (r.status === 409) day.status409 += r.count;
      else day.statusOther += r.count;
    }
    return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
  }

  private async ledgerDays(apiKeyId: number, from: string, to: string): Promise<DayTotals[]> {
    const through = ((await this.knex('upkeep_state').where({ name: 'totalled_through' }).first()) as { value: string } | undefined)?.value;
    const days: DayTotals[] = [];
    if (through !== undefined && from <= through) {
      const rows = (await this.knex('usage_daily')
        .select('day')
        .sum({ requests: 'requests', charged: 'charged', refunded: 'refunded', status_200: 'status_200', status_404: 'status_404', status_422: 'status_422' })
        .sum({ status_423: 'status_423', status_5xx: 'status_5xx', status_other: 'status_other', engine_plain: 'engine_plain', engine_browser: 'engine_browser' })
        .sum({ credits: 'credits', duration_ms_total: 'duration_ms_total' })
        .max({ duration_ms_p95: 'duration_ms_p95' })
        .where({ api_key_id: apiKeyId })
        .andWhere('day', '>=', from)
        .andWhere('day', '<=', to < through ? to : through)
        .groupBy('day')
        .orderBy('day')) as Row[];
      for (const r of rows) days.push(totalsOf(String(r.day), r, n(r.duration_ms_p95)));
    }
    const liveFrom = Math.max(dayBounds(from).from, through === undefined ? 0 : dayBounds(through).to);
    const liveTo = dayBounds(to).to;
    if (liveFrom < liveTo) days.push(...(await this.liveDays(apiKeyId, liveFrom, liveTo)));
    return days;
  }

  private async liveDays(apiKeyId: number, from: number, to: number): Promise<DayTotals[]> {
    const dayNumber = this.db.dialect === 'mysql' ? `started_at DIV ${DAY_MS}` : `CAST(started_at / ${DAY_MS} AS INTEGER)`;
    const result = await this.knex.raw(
      `SELECT ${dayNumber} AS day_number, ${LEDGER_TOTALS} FROM request_ledger
        WHERE api_key_id = ? AND started_at >= ? AND started_at < ? GROUP BY day_number ORDER BY day_number`,
      [apiKeyId, from, to],
    );
    const rows = (this.db.dialect === 'mysql' ? (result as unknown[])[0] : result) as Row[];
    const out: DayTotals[] = [];
    for (const r of rows) {
      const start = n(r.day_number) * DAY_MS;
      // The rank rollupDay uses, so a live day and the same day totalled for good agree.
      const p95 = (await this.knex('request_ledger')
        .select('duration_ms')
        .where({ api_key_id: apiKeyId })
        .andWhere('started_at', '>=', start)
        .andWhere('started_at', '<', start + DAY_MS)
        .orderByRaw('COALESCE(duration_ms, 0)')
        .offset(Math.floor(0.95 * (n(r.requests) - 1)))
        .first()) as { duration_ms: number | null } | undefined;
      out.push(totalsOf(dayOf(start), r, n(p95?.duration_ms)));
    }
    return out;
  }

  /** Newest first; `before`: the previous page's last row (its start and id). */
  async requests(apiKeyId: number, page: { limit: number; status?: number; before?: { startedAt: number; id: number } }): Promise<LedgerRecord[]> {
    const query = this.knex('request_ledger').where({ api_key_id: apiKeyId }).orderBy([{ column: 'started_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(page.limit);
    if (page.status !== undefined) query.andWhere({ status_sent: page.status });
    const before = page.before;
    if (before) query.andWhere((w) => w.where('started_at', '<', before.startedAt).orWhere((x) => x.where('started_at', '=', before.startedAt).andWhere('id', '<', before.id)));
    const rows = (await query) as Row[];
    return rows.map((r) => ({
      id: n(r.id), requestId: String(r.request_id), startedAt: n(r.started_at), endedAt: r.ended_at === null ? null : n(r.ended_at),
      operation: String(r.operation), engine: String(r.engine), proxyType: String(r.proxy_type), proxyCountry: r.proxy_country === null ? null : String(r.proxy_country),
      targetHost: String(r.target_host), outcome: String(r.outcome), status: r.status_sent === null ? null : n(r.status_sent),
      pageStatus: r.page_status === null ? null : n(r.page_status), cost: n(r.cost), durationMs: r.duration_ms === null ? null : n(r.duration_ms),
      failure: r.failure === null ? null : String(r.failure),
    }));
  }

  /** The audit log, newest first, a page at a time. */
  audit(filter: { apiKeyId?: number; limit: number; beforeId?: number }): Promise<AuditRecord[]> {
    return auditPage(this.knex, filter);
  }
}
