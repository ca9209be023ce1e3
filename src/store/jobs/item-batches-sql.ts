import type { Knex } from 'knex';
import type { ItemEvents, ItemRow, ItemSettled, JobRow } from '../../jobs/job-store.js';
import { retryingLostLocks } from '../deadlock-retry.js';
import { JOB_COLUMNS, jobOf, type JobDbRow } from './job-row-sql.js';

export interface StartWrite {
  jobId: string;
  idx: number;
  dispatch: number;
  now: number;
}

export interface AnsweredWrite {
  jobId: string;
  idx: number;
  document: { stored: Buffer; bytes: number };
  cost: number;
  statusCode: number;
  now: number;
}

export interface CompleteWrite {
  jobId: string;
  idx: number;
  now: number;
  expiresAt: number;
  events: ItemEvents;
}

export type Started = { job: JobRow; item: ItemRow } | undefined;

/** States an item is in while it is handed out (to a queue, a worker). */
export const HANDED_OUT = ['dispatched', 'running', 'answered'];

const NOTHING: ItemSettled = { settled: false, jobCompleted: false };

interface ItemDbRow {
  idx: number;
  request_id: string;
  api_key_id: number;
  url: string;
  state: ItemRow['state'];
  attempts: number;
  dispatches: number;
  cost: number | null;
  document: Buffer | null;
}

/** The writes of one batch, by job, jobs in id order: two instances' batches lock rows in one order. */
function byJob<W extends { jobId: string; idx: number }>(writes: W[]): Array<[string, W[]]> {
  const groups = new Map<string, W[]>();
  for (const w of writes) groups.set(w.jobId, [...(groups.get(w.jobId) ?? []), w]);
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `CASE idx WHEN ? THEN ? … END`: one value per item in one UPDATE. */
function perItem(knex: Knex, values: Array<[number, unknown]>): Knex.Raw {
  return knex.raw(`CASE idx ${values.map(() => 'WHEN ? THEN ?').join(' ')} END`, values.flat() as Knex.Value[]);
}

/**
 * An item's start, its answer and its end, written for many items at once (group-commit.ts sends
 * them): a batch of starts is one transaction of four statements per job, its answers one UPDATE
 * per job, its ends one transaction of five per job, instead of two, one and six per item. Each
 * item is still judged alone on the state it leaves, so a stale worker changes nothing.
 */
export class ItemBatchesSql {
  private readonly mysql: boolean;

  constructor(private readonly knex: Knex) {
    this.mysql = knex.client.config.client === 'mysql2';
  }

  start(writes: StartWrite[]): Promise<Started[]> {
    return retryingLostLocks(() => this.knex.transaction(async (trx) => {
      const out = new Map<StartWrite, Started>();
      for (const [jobId, ofJob] of byJob(writes)) {
        const query = trx('job_items').select('idx', 'request_id', 'api_key_id', 'url', 'state', 'attempts', 'dispatches', 'cost', 'document')
          .where('job_id', jobId).whereIn('idx', [...new Set(ofJob.map((w) => w.idx))]);
        const rows = new Map(((await (this.mysql ? query.forUpdate() : query)) as ItemDbRow[]).map((r) => [Number(r.idx), r]));
        const taken = ofJob.filter((w) => {
          const row = rows.get(w.idx);
          return row !== undefined && Number(row.dispatches) === w.dispatch && HANDED_OUT.includes(row.state);
        });
        if (taken.length === 0) continue;
        const idxs = [...new Set(taken.map((w) => w.idx))];
        await trx('job_items').where('job_id', jobId).whereIn('idx', idxs).update({ state: 'running', attempts: trx.raw('attempts + 1'), updated_at: taken[0].now });
        const job = jobOf((await trx('jobs').join('api_keys', 'api_keys.id', 'jobs.api_key_id').select(JOB_COLUMNS).where('jobs.id', jobId).first()) as JobDbRow);
        for (const w of taken) {
          const r = rows.get(w.idx)!;
          out.set(w, {
            job,
            item: {
              jobId, idx: w.idx, requestId: r.request_id, apiKeyId: Number(r.api_key_id), url: r.url, state: 'running', attempts: Number(r.attempts) + 1,
              dispatches: Number(r.dispatches), cost: r.cost === null ? undefined : Number(r.cost), document: r.document ?? undefined,
            },
          });
        }
      }
      return writes.map((w) => out.get(w));
    }));
  }

  async answered(writes: AnsweredWrite[]): Promise<void[]> {
    for (const [jobId, ofJob] of byJob(writes)) {
      const last = new Map(ofJob.map((w) => [w.idx, w]));
      const ws = [...last.values()];
      await retryingLostLocks(() => this.knex('job_items').where({ job_id: jobId, state: 'running' }).whereIn('idx', ws.map((w) => w.idx)).update({
        state: 'answered',
        document: perItem(this.knex, ws.map((w) => [w.idx, w.document.stored])),
        document_bytes: perItem(this.knex, ws.map((w) => [w.idx, w.document.bytes])),
        cost: perItem(this.knex, ws.map((w) => [w.idx, w.cost])),
        status_code: perItem(this.knex, ws.map((w) => [w.idx, w.statusCode])),
        updated_at: Math.max(...ws.map((w) => w.now)),
      }));
    }
    return writes.map(() => undefined);
  }

  complete(writes: CompleteWrite[]): Promise<ItemSettled[]> {
    return retryingLostLocks(() => this.knex.transaction(async (trx) => {
      const out = new Map<CompleteWrite, ItemSettled>();
      for (const [jobId, ofJob] of byJob(writes)) {
        const itemQuery = trx('job_items').select('idx', 'cost', 'state').where('job_id', jobId).whereIn('idx', [...new Set(ofJob.map((w) => w.idx))]);
        const items = new Map(((await (this.mysql ? itemQuery.forUpdate() : itemQuery)) as Array<{ idx: number; cost: number | null; state: string }>).map((r) => [Number(r.idx), r]));
        // An item written twice in one batch (a stale worker beside the live one) is settled once.
        const settling: CompleteWrite[] = [];
        for (const w of ofJob) {
          if (HANDED_OUT.includes(items.get(w.idx)?.state ?? '') && !settling.some((s) => s.idx === w.idx)) settling.push(w);
        }
        if (settling.length === 0) continue;
        for (const w of settling) await w.events.page(trx);
        // The job's row last, locked for as few statements as can be: every item of the job meets
        // it, and finishing numbers are handed out one at a time.
        const jobQuery = trx('jobs').select('done_count', 'failed_count', 'total', 'status').where('id', jobId);
        const job = (await (this.mysql ? jobQuery.forUpdate() : jobQuery).first()) as { done_count: number; failed_count: number; total: number; status: string } | undefined;
        if (!job) continue;
        const first = Number(job.done_count) + 1;
        const done = Number(job.done_count) + settling.length;
        const completes = job.status === 'scraping' && done + Number(job.failed_count) >= Number(job.total);
        const last = settling[settling.length - 1];
        const cost = settling.reduce((sum, w) => sum + Number(items.get(w.idx)!.cost ?? 0), 0);
        await trx('jobs').where('id', jobId).update({
          done_count: done, credits_used: trx.raw('credits_used + ?', [cost]), expires_at: Math.max(...settling.map((w) => w.expiresAt)),
          ...(completes ? { status: 'completed', finished_at: last.now } : {}),
        });
        await trx('job_items').where('job_id', jobId).whereIn('idx', settling.map((w) => w.idx)).update({
          state: 'done', done_seq: perItem(trx, settling.map((w, i) => [w.idx, first + i])), updated_at: last.now, finished_at: last.now,
        });
        if (completes) await last.events.completed(trx);
        for (const w of settling) out.set(w, { settled: true, jobCompleted: completes && w === last });
      }
      return writes.map((w) => out.get(w) ?? NOTHING);
    }));
  }
}
