import type { Knex } from 'knex';

/**
 * Webhooks: each key's signing secret, and the durable outbox of deliveries. A delivery row is
 * written in the transaction of the job change it reports (jobs/job-ports.ts, WebhookOutbox), so
 * an event is recorded exactly when what it reports is; every instance's deliverer claims due rows
 * with a lease (claimed_until), so two instances never send the same attempt at once.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.createTable('webhook_secrets', (t) => {
    t.integer('api_key_id').unsigned().primary();
    /** `whsec_` + base64 of 32 random bytes, as Standard Webhooks spells a secret. */
    t.string('secret', 80).notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    /** The webhook-id: the same on every attempt of one event. */
    t.string('id', 40).primary();
    t.integer('api_key_id').unsigned().notNullable();
    t.string('job_id', 36).notNullable();
    /** The payload's `type`, e.g. `batch_scrape.page`. */
    t.string('event', 40).notNullable();
    /** The exact body sent (JSON), bounded by the outbox (webhooks/webhook-payload.ts). */
    if (mysql) t.specificType('payload', 'MEDIUMTEXT').notNullable();
    else t.text('payload').notNullable();
    t.text('url').notNullable();
    /** The subscription's own headers (JSON), already stripped of the ones it may not set. */
    t.text('headers').notNullable();
    /** pending → delivered | failed (schedule exhausted) | stopped (410). A replay makes it pending again. */
    t.string('state', 10).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').notNullable();
    /** A deliverer holds the row until then; past it, another may take it over. */
    t.bigInteger('claimed_until').notNullable().defaultTo(0);
    t.string('claim_token', 36).nullable();
    t.integer('last_status').nullable();
    t.string('last_error', 500).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('delivered_at').nullable();
    t.index(['state', 'next_attempt_at'], 'webhook_deliveries_due');
    t.index(['api_key_id', 'created_at'], 'webhook_deliveries_key');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_secrets');
}
