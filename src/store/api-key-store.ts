import type { Knex } from 'knex';
import { addMonths } from '../billing/billing-period.js';
import type { KeyAccount } from '../billing/billing-store.js';
import { normalizeIpEntries } from '../ip/ip-range.js';
import { allowedIpsColumn, keyAccountOf, type KeyRow } from '../accounts/key-row.js';
import type { NewKey } from '../accounts/account-ports.js';
import { newSecret } from '../accounts/key-secret.js';
import { hashApiKey } from '../billing/billing.js';

export type { NewKey } from '../accounts/account-ports.js';

/** Keys and their subscriptions. A key is stored only as its SHA-256; the key itself is shown once. */
export class ApiKeyStore {
  constructor(
    private readonly knex: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * InvalidIpEntryError (nothing created) for an entry of `allowedIps` that is not an address or
   * range. `alongside` runs in the creation's transaction (the audit entry of accounts/key-admin.ts).
   */
  async create(spec: NewKey, alongside?: (trx: Knex.Transaction, row: KeyRow) => Promise<void>): Promise<{ key: string; record: KeyAccount }> {
    const allowedIps = allowedIpsColumn(normalizeIpEntries(spec.allowedIps ?? []));
    const secret = newSecret();
    const now = this.now();
    const row = {
      key_hash: secret.hash,
      key_prefix: secret.prefix,
      label: spec.label ?? null,
      plan_name: spec.planName,
      credits_total: spec.credits,
      credits_remaining: spec.credits,
      max_concurrency: spec.maxConcurrency,
      allowed_ips: allowedIps,
      period_start: now,
      period_end: addMonths(now, 1),
      created_at: now,
      revoked_at: null,
    };
    const stored = await this.knex.transaction(async (trx) => {
      await trx('api_keys').insert(row);
      const inserted = (await trx<KeyRow>('api_keys').where({ key_hash: row.key_hash }).first()) as KeyRow;
      await alongside?.(trx, inserted);
      return inserted;
    });
    return { key: secret.key, record: keyAccountOf(stored) };
  }

  async list(): Promise<KeyAccount[]> {
    const rows = await this.knex<KeyRow>('api_keys').orderBy('id');
    return rows.map(keyAccountOf);
  }

  /** The key's row as stored (its period is rolled over only by the billing, when it is used). */
  async find(key: string): Promise<KeyAccount | undefined> {
    const row = await this.knex<KeyRow>('api_keys').where({ key_hash: hashApiKey(key) }).first();
    return row ? keyAccountOf(row) : undefined;
  }

  /** Revokes by the full key or by its display prefix when that names exactly one key. */
  async revoke(keyOrPrefix: string): Promise<KeyAccount | undefined> {
    const id = await this.idOf(keyOrPrefix);
    if (id === undefined) return undefined;
    await this.knex('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: this.now() });
    return this.byId(id);
  }

  /**
   * Replaces the addresses and ranges a key (the full key, or its display prefix when that names
   * exactly one) may be used from; an empty list lifts the restriction. Takes effect with the
   * key's next request, on every instance. InvalidIpEntryError (nothing changed) for an entry
   * that is not an address or range.
   */
  async setAllowedIps(keyOrPrefix: string, entries: readonly string[]): Promise<KeyAccount | undefined> {
    const allowedIps = allowedIpsColumn(normalizeIpEntries(entries));
    const id = await this.idOf(keyOrPrefix);
    if (id === undefined) return undefined;
    await this.knex('api_keys').where({ id }).update({ allowed_ips: allowedIps });
    return this.byId(id);
  }

  /** The id of the key given as its secret, or as its display prefix when that names exactly one key. */
  async idOf(keyOrPrefix: string): Promise<number | undefined> {
    let rows = await this.knex<KeyRow>('api_keys').select('id').where({ key_hash: hashApiKey(keyOrPrefix) });
    if (rows.length === 0) rows = await this.knex<KeyRow>('api_keys').select('id').where({ key_prefix: keyOrPrefix });
    return rows.length === 1 ? Number(rows[0].id) : undefined;
  }

  private async byId(id: number): Promise<KeyAccount> {
    const row = await this.knex<KeyRow>('api_keys').where({ id }).first();
    return keyAccountOf(row as KeyRow);
  }
}
