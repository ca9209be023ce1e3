import type { Knex } from 'knex';

/**
 * A crawl's rules and its frontier (jobs/crawl/crawl-store.ts). The frontier holds every URL a
 * crawl met, once, by the digest of its normalised key: the unique (job, key) is what makes a
 * page fetched at most once per crawl, whichever instance found it. A URL to crawl is also a
 * job item (`idx`); one robots.txt refused has none (`blocked`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('crawls', (t) => {
    t.string('job_id', 36).primary();
    /** The rules as validated at submission (JSON). */
    t.text('rules').notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('crawl_urls', (t) => {
    t.string('job_id', 36).notNullable();
    /** SHA-1 of the URL's normalised key, hex. */
    t.string('url_key', 40).notNullable();
    t.text('url').notNullable();
    /** Its job item; null: refused by robots.txt, never fetched. */
    t.integer('idx').nullable();
    t.integer('depth').notNullable();
    t.text('found_on').nullable();
    t.boolean('blocked').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.primary(['job_id', 'url_key']);
    t.index(['job_id', 'idx'], 'crawl_urls_job_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('crawl_urls');
  await knex.schema.dropTable('crawls');
}
