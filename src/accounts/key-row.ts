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
  /** A JSON array of normalized CIDRs; NULL: anywhere (never an empty array, so the hot path tests IS NULL). */
  allowed_ips: string | null;
  period_start: number | string;
  period_end: number | string;
  created_at: number | string;
  revoked_at: number | string | null;
  browser_window_start: number | string;
  browser_attempts: number | string;
  browser_failures: number | string;
  /** After a rotation with grace: the previous secret's hash, valid until previous_key_expires_at. */
  previous_key_hash: string | null;
  previous_key_expires_at: number | string | null;
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
    allowedIps: allowedIpsOf(r),
    periodStart: Number(r.period_start),
    periodEnd: Number(r.period_end),
    createdAt: Number(r.created_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    browserWindowStart: Number(r.browser_window_start),
    browserAttempts: Number(r.browser_attempts),
    browserFailures: Number(r.browser_failures),
  };
}

/**
 * A list that cannot be read (edited by hand) is kept as its text: the key stays restricted, its
 * requests fail (500, the cause logged) rather than open up, and `keys list` shows what is there.
 */
function allowedIpsOf(r: KeyRow): string[] {
  if (r.allowed_ips === null) return [];
  try {
    const list: unknown = JSON.parse(r.allowed_ips);
    if (Array.isArray(list) && list.length > 0 && list.every((e) => typeof e === 'string')) return list as string[];
  } catch {
    // kept as its text, below
  }
  return [r.allowed_ips];
}

/** The column's value for a list: NULL when empty (anywhere). */
export function allowedIpsColumn(entries: readonly string[]): string | null {
  return entries.length === 0 ? null : JSON.stringify(entries);
}
