import type { Knex } from 'knex';
import type { ChangeOutcome, Decide, KeyFilter, KeyStorePort, NewKey } from '../accounts/account-ports.js';
import type { AuditEntry } from '../accounts/audit-entry.js';
import type { KeyRow } from '../accounts/key-row.js';
import { ApiKeyStore } from './api-key-store.js';
import type { Database } from './database.js';
import { recordAudit } from './audit-log.js';

/** LIKE's own characters in a user's text match only themselves ('!' escapes: a backslash means different things to MySQL and SQLite). */
function likeEscaped(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

/** The SQL of the account rules' key operations: reads, and changes made together with their audit entries. */
export class KeyAdminStore implements KeyStorePort {
  private readonly knex: Knex;
  private readonly keys: ApiKeyStore;

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.knex = db.knex;
    this.keys = new ApiKeyStore(db.knex, now);
  }

  async create(spec: NewKey, audit: (row: KeyRow) => AuditEntry): Promise<{ key: string; row: KeyRow }> {
    let created: KeyRow | undefined;
    const { key } = await this.keys.create(spec, async (trx, row) => {
      created = row;
      await recordAudit(trx, audit(row), this.now());
    });
    return { key, row: created! };
  }

  idOf(keyOrPrefix: string): Promise<number | undefined> {
    return this.keys.idOf(keyOrPrefix);
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
  async change<T>(id: number, decide: Decide<T>): Promise<ChangeOutcome<T>> {
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
