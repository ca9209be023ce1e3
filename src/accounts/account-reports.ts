import type { components } from '../generated/admin-types.js';
import type { AccountHistoryPort, DayTotals, KeyStorePort } from './account-ports.js';
import { InvalidAccountChangeError, KeyNotFoundError } from './account-errors.js';

type UsageReport = components['schemas']['UsageReport'];
type RequestPage = components['schemas']['RequestPage'];
type AuditPage = components['schemas']['AuditPage'];

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;
const iso = (ms: number) => new Date(ms).toISOString();
const dayOf = (ms: number) => iso(ms).slice(0, 10);

function dayUsage(d: DayTotals): UsageReport['days'][number] {
  return {
    day: d.day,
    requests: d.requests,
    refused: d.refused,
    charged: d.charged,
    refunded: d.refunded,
    status: { '200': d.status200, '403': d.status403, '404': d.status404, '409': d.status409, '422': d.status422, '423': d.status423, '5xx': d.status5xx, other: d.statusOther },
    engine: { plain: d.enginePlain, browser: d.engineBrowser },
    credits: d.credits,
    duration_ms_mean: d.requests === 0 ? 0 : Math.round(d.durationMsTotal / d.requests),
    duration_ms_p95: d.durationMsP95,
  };
}

/** A cursor as `${startedAt}-${id}` (requests) or `${id}` (audit), already checked by the document's pattern. */
function cursorParts(cursor: string | undefined): number[] | undefined {
  return cursor === undefined ? undefined : cursor.split('-').map(Number);
}

/** What a key did and what was done to it: daily usage, its ledger rows, the audit log. */
export class AccountReports {
  constructor(
    private readonly parts: { keys: KeyStorePort; history: AccountHistoryPort; now?: () => number },
  ) {}

  /** UTC days `from`..`to` (defaults: the 30 days up to today), at most 366. */
  async usage(id: number, range: { from?: string; to?: string }): Promise<UsageReport> {
    await this.existing(id);
    const to = range.to ?? dayOf((this.parts.now ?? Date.now)());
    const from = range.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS);
    const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
    if (span < 1) throw new InvalidAccountChangeError([{ field: ['from'], msg: 'from must not be after to', type: 'value_error.date_range' }]);
    if (span > MAX_DAYS) throw new InvalidAccountChangeError([{ field: ['from'], msg: `at most ${MAX_DAYS} days at once`, type: 'value_error.date_range' }]);
    const days = await this.parts.history.daily(id, from, to);
    return { key_id: id, from, to, days: days.map(dayUsage) };
  }

  async requests(id: number, page: { limit?: number; cursor?: string; status?: number }): Promise<RequestPage> {
    await this.existing(id);
    const limit = page.limit ?? 100;
    const [startedAt, rowId] = cursorParts(page.cursor) ?? [];
    const before = startedAt !== undefined && rowId !== undefined ? { startedAt, id: rowId } : undefined;
    const rows = await this.parts.history.requests(id, { limit: limit + 1, status: page.status, before });
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map((r) => ({
        request_id: r.requestId,
        started_at: iso(r.startedAt),
        ended_at: r.endedAt === null ? null : iso(r.endedAt),
        operation: r.operation,
        engine: r.engine as RequestPage['items'][number]['engine'],
        proxy_type: r.proxyType as RequestPage['items'][number]['proxy_type'],
        proxy_country: r.proxyCountry,
        target_host: r.targetHost,
        outcome: r.outcome as RequestPage['items'][number]['outcome'],
        status: r.status,
        page_status: r.pageStatus,
        cost: r.cost,
        duration_ms: r.durationMs,
        failure: r.failure,
      })),
      next_cursor: rows.length > limit ? `${last.startedAt}-${last.id}` : null,
    };
  }

  async audit(page: { keyId?: number; limit?: number; cursor?: string }): Promise<AuditPage> {
    const limit = page.limit ?? 100;
    const rows = await this.parts.history.audit({ apiKeyId: page.keyId, limit: limit + 1, beforeId: cursorParts(page.cursor)?.[0] });
    const items = rows.slice(0, limit);
    return {
      items: items.map((r) => ({ id: r.id, at: iso(r.at), actor: r.actor, action: r.action, key_id: r.apiKeyId, key_prefix: r.keyPrefix, before: r.before, after: r.after })),
      next_cursor: rows.length > limit ? String(items[items.length - 1].id) : null,
    };
  }

  private async existing(id: number): Promise<void> {
    if (!(await this.parts.keys.byId(id))) throw new KeyNotFoundError();
  }
}
