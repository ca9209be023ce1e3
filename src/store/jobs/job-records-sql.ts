import type { Knex } from 'knex';
import type { FinishedDocument, JobRecords, JobRow, NewJob, WithinWrite } from '../../jobs/job-store.js';
import type { JobError, JobKind, JobStatus, JobSummary } from '../../jobs/job-ports.js';
import { isDuplicateKey } from '../driver-errors.js';
import { JOB_COLUMNS, jobOf, type JobDbRow } from './job-row-sql.js';
import { randomUUID } from 'node:crypto';

/** Items are inserted this many per statement: 50,000 URLs are 100 statements in one transaction. */
const INSERT_CHUNK = 500;

/** Jobs as the edge sees them, in SQL (jobs/job-store.ts states each contract). */
export class JobRecordsSql implements JobRecords {
  constructor(private readonly knex: Knex) {}

  async create(job: NewJob, urls: string[], within: WithinWrite, idempotencyWindowMs: number): Promise<{ id: string; created: boolean }> {
    const earlier = await this.byIdempotencyKey(job, idempotencyWindowMs);
    if (earlier) return { id: earlier, created: false };
    try {
      await this.knex.transaction(async (trx) => {
        await trx('jobs').insert({
          id: job.id, kind: job.kind, api_key_id: job.apiKeyId, status: 'scraping', engine: job.engine, url: job.url ?? null,
          options: JSON.stringify(job.options), webhook: job.webhook ? JSON.stringify(job.webhook) : null, client_address: job.clientAddress,
          idempotency_key: job.idempotencyKey ?? null, max_concurrency: job.maxConcurrency ?? null, max_retries: job.maxRetries,
          total: urls.length, created_at: job.createdAt, expires_at: job.expiresAt,
        });
        for (let start = 0; start < urls.length; start += INSERT_CHUNK) {
          const rows = urls.slice(start, start + INSERT_CHUNK).map((url, i) => ({
            job_id: job.id, idx: start + i, request_id: randomUUID(), api_key_id: job.apiKeyId, url, state: 'queued', updated_at: job.createdAt,
          }));
          await trx('job_items').insert(rows);
        }
        await within(trx);
      });
      return { id: job.id, created: true };
    } catch (err) {
      // The same key submitted twice at once: the other one made it.
      const made = isDuplicateKey(err) ? await this.byIdempotencyKey(job, idempotencyWindowMs) : undefined;
      if (!made) throw err;
      return { id: made, created: false };
    }
  }

  /**
   * The job of this kind this key's idempotency key made within the window; an older one lets its
   * key go. The kind is part of the scope (migration 013): a crawl never answers a batch's key.
   */
  private async byIdempotencyKey(job: NewJob, windowMs: number): Promise<string | undefined> {
    if (job.idempotencyKey === undefined) return undefined;
    const where = { api_key_id: job.apiKeyId, kind: job.kind, idempotency_key: job.idempotencyKey };
    const row = (await this.knex('jobs').select('id', 'created_at').where(where).first()) as { id: string; created_at: number | string } | undefined;
    if (!row) return undefined;
    if (Number(row.created_at) > job.createdAt - windowMs) return row.id;
    await this.knex('jobs').where({ id: row.id }).update({ idempotency_key: null });
    return undefined;
  }

  async find(apiKeyId: number, kind: JobKind, id: string): Promise<JobRow | undefined> {
    const where = { 'jobs.id': id, 'jobs.api_key_id': apiKeyId, 'jobs.kind': kind };
    const row = (await this.knex('jobs').join('api_keys', 'api_keys.id', 'jobs.api_key_id').select(JOB_COLUMNS).where(where).first()) as
      | JobDbRow
      | undefined;
    return row ? jobOf(row) : undefined;
  }

  async documents(jobId: string, kind: JobKind, skip: number, limit: number, maxBytes: number): Promise<FinishedDocument[]> {
    // Sizes first, so that a page's cut is known before any document is read; the second read takes only the items chosen here.
    const sizes = (await this.knex('job_items').select('idx', 'done_seq', 'document_bytes')
      .whereIn('job_id', this.ofKind(jobId, kind)).andWhere('done_seq', '>', skip).andWhere('done_seq', '<=', skip + limit).orderBy('done_seq')) as Array<{ idx: number; done_seq: number; document_bytes: number | null }>;
    const chosen: Array<{ idx: number; done_seq: number }> = [];
    let bytes = 0;
    for (const row of sizes) {
      const size = Number(row.document_bytes ?? 0);
      if (chosen.length > 0 && bytes + size > maxBytes) break;
      chosen.push(row);
      bytes += size;
    }
    if (chosen.length === 0) return [];
    const rows = (await this.knex('job_items').select('done_seq', 'document').where('job_id', jobId).whereIn('idx', chosen.map((c) => c.idx)).orderBy('done_seq')) as Array<{
      done_seq: number;
      document: Buffer;
    }>;
    return rows.map((r) => ({ doneSeq: Number(r.done_seq), document: r.document }));
  }

  async errors(jobId: string, kind: JobKind): Promise<JobError[]> {
    const rows = (await this.knex('job_items').select('request_id', 'url', 'error_code', 'error', 'finished_at')
      .whereIn('job_id', this.ofKind(jobId, kind)).andWhere('state', 'failed').orderBy('idx')) as Array<{ request_id: string; url: string; error_code: string | null; error: string | null; finished_at: number | string | null }>;
    return rows.map((r) => ({
      id: r.request_id, url: r.url, code: r.error_code ?? 'UNKNOWN', error: r.error ?? 'failed',
      timestamp: new Date(Number(r.finished_at ?? 0)).toISOString(),
    }));
  }

  /** The job's id when it is of this kind (a subquery: items carry no kind of their own). */
  private ofKind(jobId: string, kind: JobKind): Knex.QueryBuilder {
    return this.knex('jobs').select('id').where({ id: jobId, kind });
  }

  async cancel(jobId: string, kind: JobKind, now: number, expiresAt: number): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const changed = Number(await trx('jobs').where({ id: jobId, kind, status: 'scraping' }).update({ status: 'cancelled', finished_at: now, expires_at: expiresAt }));
      if (changed !== 1) return false;
      // Items handed out but not started are cancelled too: a worker taking one finds it so and skips it.
      await trx('job_items').where('job_id', jobId).whereIn('state', ['queued', 'dispatched']).update({ state: 'cancelled', updated_at: now, finished_at: now });
      return true;
    });
  }

  async summaries(apiKeyId: number, filter: { kind?: JobKind; status?: JobStatus; limit: number }): Promise<JobSummary[]> {
    const query = this.knex('jobs').select('id', 'kind', 'status', 'url', 'total', 'done_count', 'failed_count', 'credits_used', 'created_at', 'expires_at')
      .where('api_key_id', apiKeyId).orderBy('created_at', 'desc').limit(filter.limit);
    if (filter.kind) query.andWhere('kind', filter.kind);
    if (filter.status) query.andWhere('status', filter.status);
    const rows = (await query) as Array<Omit<JobDbRow, 'key_hash'>>;
    return rows.map((r) => ({
      id: r.id, kind: r.kind as JobKind, status: r.status as JobStatus, url: r.url ?? undefined, total: Number(r.total),
      completed: Number(r.done_count), failed: Number(r.failed_count), creditsUsed: Number(r.credits_used),
      createdAt: new Date(Number(r.created_at)), expiresAt: new Date(Number(r.expires_at)),
    }));
  }

  async prune(now: number, limit: number): Promise<number> {
    // Running jobs are never pruned: their expiry moves with every change.
    const ids = ((await this.knex('jobs').select('id').where('expires_at', '<=', now).whereNot('status', 'scraping').limit(limit)) as Array<{ id: string }>).map((r) => r.id);
    for (const id of ids) {
      await this.knex.transaction(async (trx) => {
        await trx('job_items').where('job_id', id).delete();
        // A crawl's rules and frontier go with its job: no row outlives it, so nothing sweeps orphans.
        await trx('crawl_urls').where('job_id', id).delete();
        await trx('crawls').where('job_id', id).delete();
        await trx('jobs').where('id', id).delete();
      });
    }
    return ids.length;
  }
}
