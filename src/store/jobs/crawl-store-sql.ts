import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { isDuplicateKey } from '../driver-errors.js';
import type { CrawlPage, CrawlStore, FoundUrl } from '../../jobs/crawl/crawl-store.js';
import type { JobStatus } from '../../jobs/job-ports.js';

/** Rows per insert statement, and digests per lookup. */
const CHUNK = 400;

/** A crawl's rules and frontier in SQL (jobs/crawl/crawl-store.ts states each contract). */
export class CrawlStoreSql implements CrawlStore {
  private readonly mysql: boolean;

  constructor(private readonly knex: Knex) {
    this.mysql = knex.client.config.client === 'mysql2';
  }

  async seed(trx: Knex.Transaction, jobId: string, rules: string, start: FoundUrl): Promise<void> {
    const now = Date.now();
    await trx('crawls').insert({ job_id: jobId, rules, created_at: now });
    await trx('crawl_urls').insert({ job_id: jobId, url_key: start.digest, url: start.url, idx: 0, depth: 0, found_on: null, blocked: false, created_at: now });
  }

  async pageOf(requestId: string): Promise<CrawlPage | undefined> {
    const row = (await this.knex('job_items')
      .join('crawl_urls', (j) => j.on('crawl_urls.job_id', 'job_items.job_id').andOn('crawl_urls.idx', 'job_items.idx'))
      .join('crawls', 'crawls.job_id', 'job_items.job_id')
      .join('jobs', 'jobs.id', 'job_items.job_id')
      .select('job_items.job_id', 'job_items.idx', 'job_items.url', 'crawl_urls.depth', 'crawl_urls.found_on', 'crawls.rules', 'jobs.status')
      .where('job_items.request_id', requestId).first()) as
      | { job_id: string; idx: number; url: string; depth: number; found_on: string | null; rules: string; status: JobStatus }
      | undefined;
    if (!row) return undefined;
    return { jobId: row.job_id, idx: Number(row.idx), url: row.url, depth: Number(row.depth), foundOn: row.found_on ?? undefined, rules: row.rules, status: row.status };
  }

  discover(jobId: string, found: FoundUrl[], blocked: FoundUrl[], limit: number, now: number): Promise<number> {
    if (found.length === 0 && blocked.length === 0) return Promise.resolve(0);
    return this.knex.transaction(async (trx) => {
      // The job's row first, locked: items of one crawl are numbered one discovery at a time.
      const jobQuery = trx('jobs').select('total', 'status', 'api_key_id').where('id', jobId);
      const job = (await (this.mysql ? jobQuery.forUpdate() : jobQuery).first()) as { total: number; status: string; api_key_id: number } | undefined;
      if (!job || job.status !== 'scraping') return 0;
      const known = await this.known(trx, jobId, [...found, ...blocked].map((f) => f.digest));
      const fresh = (list: FoundUrl[]) => {
        const out: FoundUrl[] = [];
        for (const f of list) {
          if (known.has(f.digest)) continue;
          known.add(f.digest);
          out.push(f);
        }
        return out;
      };
      let total = Number(job.total);
      const toCrawl = fresh(found).slice(0, Math.max(0, limit - total));
      const refused = fresh(blocked);
      const urlRows = [
        ...toCrawl.map((f, i) => ({ job_id: jobId, url_key: f.digest, url: f.url, idx: total + i, depth: f.depth, found_on: f.foundOn ?? null, blocked: false, created_at: now })),
        ...refused.map((f) => ({ job_id: jobId, url_key: f.digest, url: f.url, idx: null, depth: f.depth, found_on: f.foundOn ?? null, blocked: true, created_at: now })),
      ];
      for (let i = 0; i < urlRows.length; i += CHUNK) await trx('crawl_urls').insert(urlRows.slice(i, i + CHUNK));
      const items = toCrawl.map((f, i) => ({ job_id: jobId, idx: total + i, request_id: randomUUID(), api_key_id: job.api_key_id, url: f.url, state: 'queued', updated_at: now }));
      for (let i = 0; i < items.length; i += CHUNK) await trx('job_items').insert(items.slice(i, i + CHUNK));
      total += toCrawl.length;
      if (toCrawl.length > 0) await trx('jobs').where('id', jobId).update({ total });
      return toCrawl.length;
    });
  }

  async claim(jobId: string, target: FoundUrl, now: number): Promise<boolean> {
    const row = { job_id: jobId, url_key: target.digest, url: target.url, idx: null, depth: target.depth, found_on: target.foundOn ?? null, blocked: false, created_at: now };
    try {
      await this.knex('crawl_urls').insert(row);
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      // Already met (the key is unique per crawl): by this page, or another way.
      const met = (await this.knex('crawl_urls').select('idx', 'blocked', 'found_on').where({ job_id: jobId, url_key: target.digest }).first()) as
        | { idx: number | null; blocked: boolean | number; found_on: string | null }
        | undefined;
      if (!met) throw err;
      return met.idx === null && !met.blocked && met.found_on === (target.foundOn ?? null);
    }
  }

  private async known(trx: Knex.Transaction, jobId: string, digests: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const unique = [...new Set(digests)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const rows = (await trx('crawl_urls').select('url_key').where('job_id', jobId).whereIn('url_key', unique.slice(i, i + CHUNK))) as Array<{ url_key: string }>;
      for (const r of rows) out.add(r.url_key);
    }
    return out;
  }

  async robotsBlocked(jobId: string, max: number): Promise<string[]> {
    const rows = (await this.knex('crawl_urls').select('url').where({ job_id: jobId, blocked: true }).orderBy('created_at').limit(max)) as Array<{ url: string }>;
    return rows.map((r) => r.url);
  }
}
