import type { Knex } from 'knex';
import { reserveBatchProcedure } from '../billing/mysql-batch-procedures.js';
import { HOT_PATH_KEY, HOT_PATH_KEY_BEFORE_005, reserveProcedure } from '../billing/mysql-procedures.js';

/** Both reservation procedures (alone and batched), rebuilt on one rule of which keys the debit by hash takes. */
function reservationProcedures(hotPathKey: string): string[] {
  return [
    'DROP PROCEDURE IF EXISTS scrapegate_reserve', reserveProcedure(hotPathKey),
    'DROP PROCEDURE IF EXISTS scrapegate_reserve_batch', reserveBatchProcedure(hotPathKey),
  ];
}

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
  for (const sql of reservationProcedures(HOT_PATH_KEY)) await knex.raw(sql);
}

/** The procedures first: from here on nothing may read the column. */
export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    for (const sql of reservationProcedures(HOT_PATH_KEY_BEFORE_005)) await knex.raw(sql);
  }
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('allowed_ips');
  });
}
