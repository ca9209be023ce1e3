import type { Knex } from 'knex';
import type { DispatchQueries, DueItem, ItemRow, ScrapingJob } from '../../jobs/job-store.js';

const HANDED_OUT = ['dispatched', 'running', 'answered'];

/** What the dispatcher reads and marks, in SQL (jobs/dispatcher.ts); every query is on an index. */
export class DispatchQueriesSql implements DispatchQueries {
  constructor(private readonly knex: Knex) {}

  async scraping(): Promise<{ jobs: ScrapingJob[]; keyInFlight: Map<number, number> }> {
    const jobs = (await this.knex('jobs').join('api_keys', 'api_keys.id', 'jobs.api_key_id')
      .select('jobs.id', 'jobs.api_key_id', 'jobs.engine', 'jobs.max_concurrency', 'api_keys.max_concurrency as key_max')
      .where('jobs.status', 'scraping').orderBy('jobs.id')) as Array<{ id: string; api_key_id: number; engine: string; max_concurrency: number | null; key_max: number | null }>;
    if (jobs.length === 0) return { jobs: [], keyInFlight: new Map() };
    // Over every job of these keys, scraping or not: a cancelled job's running items still hold their key's slots.
    const keys = [...new Set(jobs.map((j) => Number(j.api_key_id)))];
    const counts = (await this.knex('job_items').select('job_id', 'api_key_id').count({ n: '*' })
      .whereIn('state', HANDED_OUT).whereIn('api_key_id', keys).groupBy('job_id', 'api_key_id')) as Array<{ job_id: string; api_key_id: number; n: number | string }>;
    const inFlight = new Map(counts.map((c) => [c.job_id, Number(c.n)]));
    const keyInFlight = new Map<number, number>();
    for (const c of counts) keyInFlight.set(Number(c.api_key_id), (keyInFlight.get(Number(c.api_key_id)) ?? 0) + Number(c.n));
    return {
      keyInFlight,
      jobs: jobs.map((j) => ({
        id: j.id, apiKeyId: Number(j.api_key_id), engine: j.engine === 'browser' ? 'browser' : 'plain',
        maxConcurrency: j.max_concurrency ?? undefined, keyMaxConcurrency: j.key_max ?? undefined, inFlight: inFlight.get(j.id) ?? 0,
      })),
    };
  }

  async due(jobId: string, now: number, limit: number): Promise<DueItem[]> {
    const rows = (await this.knex('job_items').select('idx', 'dispatches').where({ job_id: jobId, state: 'queued' })
      .andWhere('not_before', '<=', now).orderBy('idx').limit(limit)) as Array<{ idx: number; dispatches: number }>;
    return rows.map((r) => ({ jobId, idx: Number(r.idx), dispatches: Number(r.dispatches) }));
  }

  async markDispatched(items: DueItem[], now: number): Promise<DueItem[]> {
    // One statement per job. Only the dispatcher (under its lock) moves queued items, so those it
    // read are those it marks; one cancelled meanwhile is skipped by its worker.
    const byJob = new Map<string, number[]>();
    for (const item of items) byJob.set(item.jobId, [...(byJob.get(item.jobId) ?? []), item.idx]);
    await this.knex.transaction(async (trx) => {
      for (const [jobId, idxs] of byJob) {
        await trx('job_items').where({ job_id: jobId, state: 'queued' }).whereIn('idx', idxs)
          .update({ state: 'dispatched', dispatches: trx.raw('dispatches + 1'), updated_at: now });
      }
    });
    return items.map((item) => ({ ...item, dispatches: item.dispatches + 1 }));
  }

  async unmark(items: DueItem[], now: number): Promise<void> {
    await this.knex.transaction(async (trx) => {
      for (const item of items) {
        await trx('job_items').where({ job_id: item.jobId, idx: item.idx, state: 'dispatched', dispatches: item.dispatches }).update({ state: 'queued', updated_at: now });
      }
    });
  }

  async handedOutSince(before: number, limit: number): Promise<Array<DueItem & { state: ItemRow['state']; engine: 'plain' | 'browser' }>> {
    const rows = (await this.knex('job_items').join('jobs', 'jobs.id', 'job_items.job_id')
      .select('job_items.job_id', 'job_items.idx', 'job_items.dispatches', 'job_items.state', 'jobs.engine').whereIn('job_items.state', HANDED_OUT)
      .andWhere('job_items.updated_at', '<', before).limit(limit)) as Array<{ job_id: string; idx: number; dispatches: number; state: ItemRow['state']; engine: string }>;
    return rows.map((r) => ({ jobId: r.job_id, idx: Number(r.idx), dispatches: Number(r.dispatches), state: r.state, engine: r.engine === 'browser' ? 'browser' : 'plain' }));
  }
}
