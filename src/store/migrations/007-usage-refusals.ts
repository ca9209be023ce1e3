import type { Knex } from 'knex';

/** A key's refusals (403, 409, 429) per day and status: they never reach the ledger, and its usage report shows them. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_refusals', (t) => {
    t.integer('api_key_id').unsigned().notNullable();
    t.string('day', 10).notNullable();
    t.integer('status').notNullable();
    t.integer('count').notNullable();
    t.primary(['api_key_id', 'day', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('usage_refusals');
}
