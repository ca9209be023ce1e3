import type { Knex } from 'knex';

/**
 * An idempotency key is scoped by the job's kind as well as its API key: the same
 * `x-idempotency-key` value sent to /v2/batch/scrape and to /v2/crawl makes a batch and a crawl,
 * never answers one with the other. The unique index is what settles two submissions at once
 * (store/jobs/job-records-sql.ts), so it carries the kind too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.unique(['api_key_id', 'kind', 'idempotency_key'], { indexName: 'jobs_idempotency_kind' });
  });
  await knex.schema.alterTable('jobs', (t) => {
    t.dropUnique(['api_key_id', 'idempotency_key'], 'jobs_idempotency');
  });
}

/** Back to one scope per key: crawls let their keys go, since the old index could not hold a crawl's and a batch's alike. */
export async function down(knex: Knex): Promise<void> {
  await knex('jobs').where('kind', 'crawl').update({ idempotency_key: null });
  await knex.schema.alterTable('jobs', (t) => {
    t.unique(['api_key_id', 'idempotency_key'], { indexName: 'jobs_idempotency' });
  });
  await knex.schema.alterTable('jobs', (t) => {
    t.dropUnique(['api_key_id', 'kind', 'idempotency_key'], 'jobs_idempotency_kind');
  });
}
