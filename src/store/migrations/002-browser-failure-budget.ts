import type { Knex } from 'knex';

/**
 * A key's browser requests in its current hour: how many were made and how many failed
 * uncharged. The debit refuses a browser request (429) once a key's uncharged failures in the
 * hour pass both the allowance and half of its browser requests (see CreditStore).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.bigInteger('browser_window_start').notNullable().defaultTo(0);
    t.integer('browser_attempts').notNullable().defaultTo(0);
    t.integer('browser_failures').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('browser_window_start');
    t.dropColumn('browser_attempts');
    t.dropColumn('browser_failures');
  });
}
