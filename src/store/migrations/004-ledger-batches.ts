import type { Knex } from 'knex';
import { PROCEDURES_004 } from './004-procedures.js';

/**
 * MySQL: the ledger's reservations and charges of one moment, written in one round trip and one
 * commit (store/billing/mysql-batcher.ts). SQLite groups them in process and needs nothing here.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  for (const sql of PROCEDURES_004) await knex.raw(sql);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  await knex.raw('DROP PROCEDURE IF EXISTS scrapegate_reserve_batch');
  await knex.raw('DROP PROCEDURE IF EXISTS scrapegate_charge_batch');
}
