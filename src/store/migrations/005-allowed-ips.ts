import type { Knex } from 'knex';
import { PROCEDURES_005_DOWN, PROCEDURES_005_UP } from './005-procedures.js';

/**
 * Per-key IP restrictions: `allowed_ips` holds a JSON array of normalized CIDRs, or NULL for
 * anywhere (never an empty array). A restricted key leaves the hot path: the debit by hash (both
 * MySQL procedures, and SQLite's statement in sqlite-ledger.ts) takes only keys with NULL here,
 * so a restricted key's caller is judged before anything is taken.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('allowed_ips').nullable();
  });
  if (knex.client.config.client !== 'mysql2') return;
  for (const sql of PROCEDURES_005_UP) await knex.raw(sql);
}

/** The procedures first: from here on nothing may read the column. */
export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    for (const sql of PROCEDURES_005_DOWN) await knex.raw(sql);
  }
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('allowed_ips');
  });
}
