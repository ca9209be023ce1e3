import type { Knex } from 'knex';
import type { Database } from './database.js';
import { recordAudit, type AuditEntry } from './audit-log.js';
import type { KeyRow } from './key-row.js';

export interface KeyFilter {
  plan?: string;
  /** A label containing it, or a display prefix starting with it. */
  q?: string;
  revoked?: boolean;
  limit: number;
  /** The previous page's last id: keys come newest first. */
  beforeId?: number;
}

/** The columns an admin change may set. */
export type KeyColumns = Partial<Pick<KeyRow, 'label' | 'plan_name' | 'credits_total' | 'credits_remaining' | 'max_concurrency' | 'allowed_ips' | 'key_hash' | 'key_prefix' | 'previous_key_hash' | 'previous_key_expires_at' | 'revoked_at'>>;

/** A change decided on the row as it stands (locked), with the audit entry that records it; undefined: nothing to change. */
export type Decide<T> = (row: KeyRow) => { set: KeyColumns; audit: Omit<AuditEntry, 'apiKeyId'>; result: T } | undefined;

/** LIKE's own characters in a user's text match only themselves ('!' escapes: a backslash means different things to MySQL and SQLite). */
function likeEscaped(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

/** The SQL of the admin API's key operations: reads, and changes made together with their audit entries. */
export class KeyAdminStore {
  private readonly knex: Knex;

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.knex = db.knex;
  }

  async byId(id: number): Promise<KeyRow | undefined> {
    return (await this.knex<KeyRow>('api_keys').where({ id }).first()) as KeyRow | undefined;
  }

  async list(filter: KeyFilter): Promise<KeyRow[]> {
    const query = this.knex<KeyRow>('api_keys').orderBy('id', 'desc').limit(filter.limit);
    if (filter.plan !== undefined) query.where({ plan_name: filter.plan });
    if (filter.revoked === true) query.whereNotNull('revoked_at');
    if (filter.revoked === false) query.whereNull('revoked_at');
    if (filter.beforeId !== undefined) query.where('id', '<', filter.beforeId);
    if (filter.q !== undefined) {
      const q = likeEscaped(filter.q);
      query.where((w) => w.whereRaw(`label LIKE ? ESCAPE '!'`, [`%${q}%`]).orWhereRaw(`key_prefix LIKE ? ESCAPE '!'`, [`${q}%`]));
    }
    return (await query) as KeyRow[];
  }

  /**
   * Reads the key's row locked (MySQL; SQLite's writer is alone anyway), lets `decide` say what
   * changes, and writes the change and its audit entry in one transaction. `missing` when no key
   * has this id; `unchanged` with the row when `decide` changes nothing.
   */
  async change<T>(id: number, decide: Decide<T>): Promise<{ outcome: 'changed'; row: KeyRow; result: T } | { outcome: 'unchanged'; row: KeyRow } | { outcome: 'missing' }> {
    return this.knex.transaction(async (trx) => {
      const read = trx<KeyRow>('api_keys').where({ id });
      const row = (await (this.db.dialect === 'mysql' ? read.forUpdate() : read).first()) as KeyRow | undefined;
      if (!row) return { outcome: 'missing' as const };
      const decision = decide(row);
      if (!decision) return { outcome: 'unchanged' as const, row };
      await trx('api_keys').where({ id }).update(decision.set);
      await recordAudit(trx, { ...decision.audit, apiKeyId: id }, this.now());
      const after = (await trx<KeyRow>('api_keys').where({ id }).first()) as KeyRow;
      return { outcome: 'changed' as const, row: after, result: decision.result };
    });
  }
}
