import type { components } from '../generated/admin-types.js';
import type { AuditState } from './audit-entry.js';
import { keyAccountOf, type KeyRow } from './key-row.js';

export type KeyRecord = components['schemas']['KeyRecord'];

const iso = (ms: number) => new Date(ms).toISOString();

/** A key as the admin API, the dashboard and the CLI show it: never its secret, nor a previous one's hash. */
export function keyRecordOf(row: KeyRow): KeyRecord {
  const k = keyAccountOf(row);
  const previousUntil = row.previous_key_expires_at === null ? null : Number(row.previous_key_expires_at);
  return {
    id: k.id,
    prefix: k.prefix,
    label: k.label,
    plan: k.planName,
    credits_total: k.creditsTotal,
    credits_remaining: k.creditsRemaining,
    max_concurrency: k.maxConcurrency,
    allowed_ips: k.allowedIps,
    period_start: iso(k.periodStart),
    period_end: iso(k.periodEnd),
    created_at: iso(k.createdAt),
    revoked_at: k.revokedAt === null ? null : iso(k.revokedAt),
    previous_secret_expires_at: previousUntil === null ? null : iso(previousUntil),
  };
}

/** What the audit log keeps of a key's settings: plan, credits, IPs, concurrency, label. */
export function auditStateOf(row: KeyRow): AuditState {
  const k = keyAccountOf(row);
  return { plan: k.planName, credits_total: k.creditsTotal, credits_remaining: k.creditsRemaining, max_concurrency: k.maxConcurrency, allowed_ips: k.allowedIps, label: k.label };
}
