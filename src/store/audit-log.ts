import type { Knex } from 'knex';
import type { AuditAction, AuditEntry, AuditRecord, AuditState } from '../accounts/audit-entry.js';

interface AuditRow {
  id: number | string;
  at: number | string;
  actor: string;
  action: string;
  api_key_id: number | string;
  key_prefix: string;
  before_state: string | null;
  after_state: string | null;
}

/** Written in the transaction of the change it records: a change and its entry land together or not at all. */
export async function recordAudit(trx: Knex | Knex.Transaction, entry: AuditEntry, at: number): Promise<void> {
  await trx('audit_log').insert({
    at,
    actor: entry.actor.slice(0, 40),
    action: entry.action,
    api_key_id: entry.apiKeyId,
    key_prefix: entry.keyPrefix,
    before_state: entry.before === null ? null : JSON.stringify(entry.before),
    after_state: entry.after === null ? null : JSON.stringify(entry.after),
  });
}

/** The log, newest first, a page at a time (`beforeId`: the previous page's last id). */
export async function auditPage(knex: Knex, filter: { apiKeyId?: number; limit: number; beforeId?: number }): Promise<AuditRecord[]> {
  const query = knex<AuditRow>('audit_log').orderBy('id', 'desc').limit(filter.limit);
  if (filter.apiKeyId !== undefined) query.where({ api_key_id: filter.apiKeyId });
  if (filter.beforeId !== undefined) query.where('id', '<', filter.beforeId);
  const rows = (await query) as AuditRow[];
  return rows.map((r) => ({
    id: Number(r.id),
    at: Number(r.at),
    actor: r.actor,
    action: r.action as AuditAction,
    apiKeyId: Number(r.api_key_id),
    keyPrefix: r.key_prefix,
    before: r.before_state === null ? null : (JSON.parse(r.before_state) as AuditState),
    after: r.after_state === null ? null : (JSON.parse(r.after_state) as AuditState),
  }));
}
