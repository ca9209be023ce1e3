import type { Knex } from 'knex';

// Times are epoch milliseconds from the servers' clocks, so SQLite and MySQL compare them alike.
// `keys` and `key` are reserved in MariaDB, hence api_keys and key_hash.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_keys', (t) => {
    t.increments('id').primary();
    t.string('key_hash', 64).notNullable().unique();
    t.string('key_prefix', 16).notNullable();
    t.string('label', 200).nullable();
    t.string('plan_name', 64).notNullable();
    t.bigInteger('credits_total').notNullable();
    t.bigInteger('credits_remaining').notNullable();
    t.integer('max_concurrency').nullable();
    t.bigInteger('period_start').notNullable();
    t.bigInteger('period_end').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at').nullable();
  });
  await knex.schema.createTable('concurrency_leases', (t) => {
    t.integer('api_key_id').unsigned().notNullable().references('id').inTable('api_keys').onDelete('CASCADE');
    t.integer('slot').notNullable();
    t.string('lease_id', 36).notNullable();
    t.bigInteger('expires_at').notNullable();
    t.primary(['api_key_id', 'slot']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('concurrency_leases');
  await knex.schema.dropTable('api_keys');
}
