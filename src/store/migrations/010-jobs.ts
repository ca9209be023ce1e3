import type { Knex } from 'knex';

/**
 * Jobs (batches, crawls) and their items. Everything a job is lives here, in the database every
 * instance shares: its URLs, options, progress and results (documents compressed). Redis holds
 * only which items are dispatched (jobs/README.md), so losing Redis loses no accepted work.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.createTable('jobs', (t) => {
    t.string('id', 36).primary();
    /** `batch_scrape` or `crawl`, as webhook event names and paths spell them. */
    t.string('kind', 16).notNullable();
    t.integer('api_key_id').unsigned().notNullable();
    /** scraping → completed | failed | cancelled. */
    t.string('status', 12).notNullable();
    /** `plain` or `browser`: the queue its items wait in, so each engine's share is kept. */
    t.string('engine', 8).notNullable().defaultTo('plain');
    /** A crawl's start URL; null for a batch. */
    t.text('url').nullable();
    /** The scrape options as validated at submission (JSON), decoded again for every item. */
    t.text('options', 'mediumtext').notNullable();
    /** The webhook subscription (JSON), or null. */
    t.text('webhook').nullable();
    /** Where the submitter was: an IP restriction is judged on it for every item. */
    t.string('client_address', 64).notNullable();
    t.string('idempotency_key', 255).nullable();
    t.integer('max_concurrency').nullable();
    t.integer('max_retries').notNullable();
    t.integer('total').notNullable();
    /** Items finished with a document, and with none (in /errors). */
    t.integer('done_count').notNullable().defaultTo(0);
    t.integer('failed_count').notNullable().defaultTo(0);
    t.bigInteger('credits_used').notNullable().defaultTo(0);
    t.string('error', 500).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('finished_at').nullable();
    /** Results are pruned after this (JOB_RESULT_TTL_HOURS past the last change). */
    t.bigInteger('expires_at').notNullable();
    t.index(['api_key_id', 'created_at'], 'jobs_key_created');
    t.index(['status', 'api_key_id'], 'jobs_status_key');
    t.index(['expires_at'], 'jobs_expires');
    t.unique(['api_key_id', 'idempotency_key'], { indexName: 'jobs_idempotency' });
  });
  await knex.schema.createTable('job_items', (t) => {
    t.string('job_id', 36).notNullable();
    t.integer('idx').notNullable();
    /** The item's ledger request id, on every attempt: run twice, it is charged at most once. */
    t.string('request_id', 36).notNullable().unique();
    t.integer('api_key_id').unsigned().notNullable();
    t.text('url').notNullable();
    /**
     * queued → dispatched → running → answered → done | failed | cancelled. A retry goes back to
     * queued; `answered` holds the document before its charge, so a crash then loses nothing.
     */
    t.string('state', 10).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    /** Times handed to the queue: part of the queue entry's id, so a lost entry can be handed again. */
    t.integer('dispatches').notNullable().defaultTo(0);
    /** A queued item is not dispatched before this (a retry's backoff, a host's delay). */
    t.bigInteger('not_before').notNullable().defaultTo(0);
    /** The order its document is answered in: 1, 2, … as items finish. */
    t.integer('done_seq').nullable();
    t.integer('status_code').nullable();
    t.integer('cost').nullable();
    t.string('error_code', 40).nullable();
    t.string('error', 500).nullable();
    if (mysql) t.specificType('document', 'LONGBLOB').nullable();
    else t.binary('document').nullable();
    t.integer('document_bytes').nullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('finished_at').nullable();
    t.primary(['job_id', 'idx']);
    t.index(['state', 'api_key_id', 'job_id', 'idx'], 'job_items_dispatch');
    t.index(['job_id', 'state'], 'job_items_job_state');
    t.index(['job_id', 'done_seq'], 'job_items_job_done');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('job_items');
  await knex.schema.dropTable('jobs');
}
