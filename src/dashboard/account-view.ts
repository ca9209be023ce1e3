import type { AccountReports } from '../accounts/account-reports.js';
import type { KeyRecord } from '../accounts/key-record.js';
import type { components } from '../generated/admin-types.js';

type LedgerRow = components['schemas']['LedgerRow'];
type DayUsage = components['schemas']['DayUsage'];

/**
 * The outcomes the dashboard charts, in this order: requests by the status answered and refusals
 * (403, 409; a 429 under `other`), so the bars add up to `requestCount + refusedCount`.
 */
export const OUTCOMES = ['200', '403', '404', '409', '422', '423', '5xx', 'other'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const ENGINES = ['plain', 'browser'] as const;

export interface AccountView {
  key: KeyRecord;
  /** The UTC day the figures start on: the period's first (which may hold some of the previous period's last hours). */
  since: string;
  /** Every UTC day of the period up to today (or its end), oldest first: one point each. */
  creditsByDay: Array<{ day: string; credits: number }>;
  outcomes: Record<Outcome, number>;
  engines: Record<(typeof ENGINES)[number], number>;
  /** Requests (the ledger's rows) and refusals since `since`. */
  requestCount: number;
  refusedCount: number;
  /** Exactly this period's: the allowance less what remains. */
  creditsCharged: number;
  /** The last 100 requests, newest first. */
  requests: LedgerRow[];
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function outcomesOf(days: DayUsage[]): Record<Outcome, number> {
  const sum = (pick: (d: DayUsage) => number) => days.reduce((total, d) => total + pick(d), 0);
  return {
    '200': sum((d) => d.status['200']),
    '403': sum((d) => d.status['403']),
    '404': sum((d) => d.status['404']),
    '409': sum((d) => d.status['409']),
    '422': sum((d) => d.status['422']),
    '423': sum((d) => d.status['423']),
    '5xx': sum((d) => d.status['5xx']),
    other: sum((d) => d.status.other),
  };
}

/**
 * What one key's page shows, over its current period: the same numbers as the admin API's usage
 * and requests operations (the same code makes them), with the days without requests filled in.
 */
export async function accountView(reports: AccountReports, key: KeyRecord, now: number): Promise<AccountView> {
  const periodStart = Date.parse(key.period_start);
  const periodEnd = Date.parse(key.period_end);
  const from = dayOf(periodStart);
  const to = dayOf(Math.max(periodStart, Math.min(now, periodEnd - 1)));
  const [usage, requests] = await Promise.all([reports.usage(key.id, { from, to }), reports.requests(key.id, { limit: 100 })]);
  const byDay = new Map(usage.days.map((d) => [d.day, d]));
  const creditsByDay: AccountView['creditsByDay'] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); dayOf(t) <= to; t += DAY_MS) {
    creditsByDay.push({ day: dayOf(t), credits: byDay.get(dayOf(t))?.credits ?? 0 });
  }
  return {
    key,
    since: from,
    creditsByDay,
    outcomes: outcomesOf(usage.days),
    engines: { plain: usage.days.reduce((n, d) => n + d.engine.plain, 0), browser: usage.days.reduce((n, d) => n + d.engine.browser, 0) },
    requestCount: usage.days.reduce((n, d) => n + d.requests, 0),
    refusedCount: usage.days.reduce((n, d) => n + d.refused, 0),
    creditsCharged: key.credits_total - key.credits_remaining,
    requests: requests.items,
  };
}
