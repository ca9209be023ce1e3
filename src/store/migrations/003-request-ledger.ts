import type { Knex } from 'knex';
import { PROCEDURES_003 } from './003-procedures.js';

/**
 * One row per billable request (reserved, then charged or refunded exactly once), the closed
 * periods' balances, and per-key daily totals that outlive the ledger's retention. A row holds
 * the target's host only: the ledger is no store of users' URLs.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('request_ledger', (t) => {
    t.bigIncrements('id').primary();
    t.string('request_id', 36).notNullable().unique();
    t.integer('api_key_id').unsigned().notNullable();
    /** The period the credits came from: a refund goes back there and nowhere else. */
    t.bigInteger('period_end').notNullable();
    t.string('instance_id', 36).notNullable();
    t.string('operation', 40).notNullable();
    t.string('engine', 20).notNullable();
    t.string('proxy_type', 20).notNullable();
    t.string('proxy_country', 2).nullable();
    t.string('target_host', 255).notNullable();
    t.integer('cost').notNullable();
    t.boolean('browser').notNullable();
    /** reserved → charged | refunded, once. */
    t.string('outcome', 10).notNullable();
    t.bigInteger('started_at').notNullable();
    /** The database's own clock when the row was reserved: every time limit is measured on it. */
    t.bigInteger('reserved_at_db').notNullable();
    /** After this long (database clock) the row can no longer be charged, and reconciliation refunds it. */
    t.integer('settle_limit_ms').notNullable();
    t.bigInteger('ended_at').nullable();
    t.integer('status_sent').nullable();
    t.integer('page_status').nullable();
    t.integer('duration_ms').nullable();
    t.string('failure', 200).nullable();
    /** 'request' or 'reconcile'. */
    t.string('settled_by', 10).nullable();
    t.index(['api_key_id', 'started_at'], 'request_ledger_key_started');
    t.index(['outcome', 'reserved_at_db'], 'request_ledger_outcome_reserved');
    t.index(['started_at'], 'request_ledger_started');
  });
  await knex.schema.createTable('key_periods', (t) => {
    t.integer('api_key_id').unsigned().notNullable();
    t.bigInteger('period_start').notNullable();
    t.bigInteger('period_end').notNullable();
    t.bigInteger('credits_total').notNullable();
    /** The balance the period closed with, raised by refunds of its requests settled later. */
    t.bigInteger('credits_remaining').notNullable();
    t.bigInteger('closed_at').notNullable();
    t.primary(['api_key_id', 'period_end']);
  });
  await knex.schema.createTable('usage_daily', (t) => {
    t.integer('api_key_id').unsigned().notNullable();
    /** UTC day, `YYYY-MM-DD`. */
    t.string('day', 10).notNullable();
    t.bigInteger('period_end').notNullable();
    t.integer('requests').notNullable();
    t.integer('charged').notNullable();
    t.integer('refunded').notNullable();
    t.integer('status_200').notNullable();
    t.integer('status_404').notNullable();
    t.integer('status_422').notNullable();
    t.integer('status_423').notNullable();
    t.integer('status_5xx').notNullable();
    t.integer('status_other').notNullable();
    t.integer('engine_plain').notNullable();
    t.integer('engine_browser').notNullable();
    t.bigInteger('credits').notNullable();
    t.bigInteger('duration_ms_total').notNullable();
    t.integer('duration_ms_p95').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['api_key_id', 'day', 'period_end']);
  });
  await knex.schema.createTable('upkeep_state', (t) => {
    t.string('name', 40).primary();
    t.string('value', 40).notNullable();
  });
  // Periods that began before the ledger did hold requests it never saw: the books start here.
  await knex('upkeep_state').insert({ name: 'ledger_since', value: String(Date.now()) });
  if (knex.client.config.client === 'mysql2') {
    for (const sql of PROCEDURES_003) await knex.raw(sql);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    await knex.raw('DROP PROCEDURE IF EXISTS scrapegate_reserve');
    await knex.raw('DROP PROCEDURE IF EXISTS scrapegate_refund');
  }
  await knex.schema.dropTable('upkeep_state');
  await knex.schema.dropTable('usage_daily');
  await knex.schema.dropTable('key_periods');
  await knex.schema.dropTable('request_ledger');
}
