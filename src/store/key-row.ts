import type { KeyAccount } from '../billing/billing-store.js';

/** A row of api_keys as the drivers return it (MySQL's BIGINTs may come back as strings). */
export interface KeyRow {
  id: number;
  key_hash: string;
  key_prefix: string;
  label: string | null;
  plan_name: string;
  credits_total: number | string;
  credits_remaining: number | string;
  max_concurrency: number | null;
  period_start: number | string;
  period_end: number | string;
  created_at: number | string;
  revoked_at: number | string | null;
  browser_window_start: number | string;
  browser_attempts: number | string;
  browser_failures: number | string;
}

export function keyAccountOf(r: KeyRow): KeyAccount {
  return {
    id: Number(r.id),
    prefix: r.key_prefix,
    label: r.label,
    planName: r.plan_name,
    creditsTotal: Number(r.credits_total),
    creditsRemaining: Number(r.credits_remaining),
    maxConcurrency: r.max_concurrency === null ? null : Number(r.max_concurrency),
    periodStart: Number(r.period_start),
    periodEnd: Number(r.period_end),
    createdAt: Number(r.created_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    browserWindowStart: Number(r.browser_window_start),
    browserAttempts: Number(r.browser_attempts),
    browserFailures: Number(r.browser_failures),
  };
}
