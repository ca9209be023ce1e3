import type { Knex } from 'knex';

/**
 * Where the admin token was used from (a client address, an IPv6 one by its /64), so that an
 * attack spraying wrong tokens from many addresses cannot lock the operator out: past the global
 * limit of failures, the admin token is still judged from these (accounts/sign-in-limit.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operator_addresses', (t) => {
    t.string('client', 64).primary();
    t.bigInteger('last_at').notNullable();
    t.index(['last_at'], 'operator_addresses_last_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('operator_addresses');
}
