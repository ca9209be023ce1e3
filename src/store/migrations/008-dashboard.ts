import type { Knex } from 'knex';

/**
 * The dashboard's server-side sessions and its sign-in limit, kept in the database so that every
 * instance behind a load balancer sees the same ones (a session started on one works on all; a
 * client's failures count wherever they land). Neither table holds a secret: a session is stored
 * as its id's SHA-256, the credential it was opened with as that credential's SHA-256.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_sessions', (t) => {
    t.string('id_hash', 64).primary();
    /** 'admin' (the admin token) or 'key' (a user on their own key). */
    t.string('role', 8).notNullable();
    t.integer('api_key_id').unsigned().nullable();
    /** What the session stands on: a key's current hash (or its previous one, in its grace), or the admin token's digest. */
    t.string('credential_hash', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    /** The last one-use form (a key's creation or rotation) this session sent: a reload does not send it twice. */
    t.string('last_form_id', 32).nullable();
    t.index(['expires_at'], 'dashboard_sessions_expires_at');
    t.index(['role', 'api_key_id', 'created_at'], 'dashboard_sessions_owner');
  });
  await knex.schema.createTable('sign_in_failures', (t) => {
    t.bigIncrements('id').primary();
    /** The client's address (an IPv6 client by its /64). */
    t.string('client', 64).notNullable();
    t.bigInteger('at').notNullable();
    t.index(['client', 'at'], 'sign_in_failures_client');
    t.index(['at'], 'sign_in_failures_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_in_failures');
  await knex.schema.dropTable('dashboard_sessions');
}
