import type { Knex } from 'knex';
import type { ItemEvents, ItemRow, ItemSettled, ItemTransitions, JobRow, WithinWrite } from '../../jobs/job-store.js';
import { JOB_COLUMNS, jobOf, type JobDbRow } from './job-row-sql.js';

interface ItemDbRow {
  job_id: string;
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

const itemOf = (r: ItemDbRow): ItemRow => ({
  jobId: r.job_id, idx: Number(r.idx), requestId: r.request_id, apiKeyId: Number(r.api_key_id), url: r.url, state: r.state,
  attempts: Number(r.attempts), dispatches: Number(r.dispatches), cost: r.cost === null ? undefined : Number(r.cost), document: r.document ?? undefined,
});

/** An item's columns beside its job's in one row (their names would clash). */
const ITEM_COLUMNS = [
  'job_items.request_id as item_request_id', 'job_items.url as item_url', 'job_items.state as item_state', 'job_items.attempts as item_attempts',
  'job_items.dispatches as item_dispatches', 'job_items.cost as item_cost', 'job_items.document as item_document',
];

interface ItemAliases {
  item_request_id: string;
  item_url: string;
  item_state: ItemRow['state'];
  item_attempts: number;
  item_dispatches: number;
  item_cost: number | null;
  item_document: Buffer | null;
}

/** States an item is in while it is handed out (to a queue, a worker). */
const HANDED_OUT = ['dispatched', 'running', 'answered'];

const NOTHING: ItemSettled = { settled: false, jobCompleted: false };

/**
 * An item's way through its states, in SQL (jobs/job-store.ts states each contract). Every
 * change is conditional on the state it leaves, so a stale worker (its entry handed out again
 * after a crash) changes nothing.
 */
export class ItemTransitionsSql implements ItemTransitions {
  private readonly mysql: boolean;

  constructor(private readonly knex: Knex) {
    this.mysql = knex.client.config.client === 'mysql2';
  }

  async start(jobId: string, idx: number, dispatch: number, now: number): Promise<{ job: JobRow; item: ItemRow } | undefined> {
    const changed = Number(
      await this.knex('job_items').where({ job_id: jobId, idx, dispatches: dispatch }).whereIn('state', HANDED_OUT)
        .update({ state: 'running', attempts: this.knex.raw('attempts + 1'), updated_at: now }),
    );
    if (changed !== 1) return undefined;
    const row = (await this.knex('job_items').join('jobs', 'jobs.id', 'job_items.job_id').join('api_keys', 'api_keys.id', 'jobs.api_key_id')
      .select([...JOB_COLUMNS, ...ITEM_COLUMNS]).where({ 'job_items.job_id': jobId, 'job_items.idx': idx }).first()) as JobDbRow & ItemAliases;
    return {
      job: jobOf(row),
      item: itemOf({
        job_id: jobId, idx, request_id: row.item_request_id, api_key_id: row.api_key_id, url: row.item_url, state: row.item_state,
        attempts: row.item_attempts, dispatches: row.item_dispatches, cost: row.item_cost, document: row.item_document,
      }),
    };
  }

  async answered(jobId: string, idx: number, document: { stored: Buffer; bytes: number }, cost: number, statusCode: number, now: number): Promise<void> {
    await this.knex('job_items').where({ job_id: jobId, idx, state: 'running' })
      .update({ state: 'answered', document: document.stored, document_bytes: document.bytes, cost, status_code: statusCode, updated_at: now });
  }

  complete(jobId: string, idx: number, now: number, expiresAt: number, events: ItemEvents): Promise<ItemSettled> {
    return this.knex.transaction(async (trx) => {
      const itemQuery = trx('job_items').select('cost', 'state').where({ job_id: jobId, idx });
      const item = (await (this.mysql ? itemQuery.forUpdate() : itemQuery).first()) as { cost: number | null; state: string } | undefined;
      if (!item || !HANDED_OUT.includes(item.state)) return NOTHING;
      await events.page(trx);
      // The job's row last, locked for as few statements as can be: every item of the job meets
      // it, and finishing numbers are handed out one at a time.
      const jobQuery = trx('jobs').select('done_count', 'failed_count', 'total', 'status').where('id', jobId);
      const job = (await (this.mysql ? jobQuery.forUpdate() : jobQuery).first()) as { done_count: number; failed_count: number; total: number; status: string } | undefined;
      if (!job) return NOTHING;
      const seq = Number(job.done_count) + 1;
      const completes = job.status === 'scraping' && seq + Number(job.failed_count) >= Number(job.total);
      await trx('jobs').where('id', jobId).update({
        done_count: seq, credits_used: trx.raw('credits_used + ?', [Number(item.cost ?? 0)]), expires_at: expiresAt,
        ...(completes ? { status: 'completed', finished_at: now } : {}),
      });
      await trx('job_items').where({ job_id: jobId, idx }).update({ state: 'done', done_seq: seq, updated_at: now, finished_at: now });
      if (completes) await events.completed(trx);
      return { settled: true, jobCompleted: completes };
    });
  }

  async requeue(jobId: string, idx: number, notBefore: number, uncount: boolean, now: number): Promise<void> {
    const scraping = this.knex('jobs').select('id').where({ id: jobId, status: 'scraping' });
    const queued = Number(
      await this.knex('job_items').where({ job_id: jobId, idx }).whereIn('state', HANDED_OUT).whereExists(scraping).update({
        state: 'queued', not_before: notBefore, updated_at: now, ...(uncount ? { attempts: this.knex.raw('CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END') } : {}),
      }),
    );
    // The job was cancelled (or failed) meanwhile: what would have run again never will.
    if (queued === 0) await this.knex('job_items').where({ job_id: jobId, idx }).whereIn('state', HANDED_OUT).update({ state: 'cancelled', updated_at: now, finished_at: now });
  }

  fail(jobId: string, idx: number, failure: { code: string; error: string; statusCode?: number }, now: number, expiresAt: number, events: ItemEvents): Promise<ItemSettled> {
    return this.knex.transaction(async (trx) => {
      const changed = Number(
        await trx('job_items').where({ job_id: jobId, idx }).whereIn('state', [...HANDED_OUT, 'queued']).update({
          state: 'failed', error_code: failure.code.slice(0, 40), error: failure.error.slice(0, 500), status_code: failure.statusCode ?? null,
          document: null, document_bytes: null, updated_at: now, finished_at: now,
        }),
      );
      if (changed !== 1) return NOTHING;
      await trx('jobs').where('id', jobId).update({ failed_count: trx.raw('failed_count + 1'), expires_at: expiresAt });
      return { settled: true, jobCompleted: await this.completeIfDone(trx, jobId, now, expiresAt, events) };
    });
  }

  failJob(jobId: string, failure: { code: string; error: string }, now: number, expiresAt: number, within: WithinWrite): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const changed = Number(await trx('jobs').where({ id: jobId, status: 'scraping' }).update({ status: 'failed', error: failure.error.slice(0, 500), finished_at: now, expires_at: expiresAt }));
      if (changed !== 1) return false;
      // Every URL stays accounted for: what never ran is in /errors with the reason.
      const failed = Number(
        await trx('job_items').where('job_id', jobId).whereIn('state', ['queued', 'dispatched']).update({
          state: 'failed', error_code: failure.code.slice(0, 40), error: failure.error.slice(0, 500), updated_at: now, finished_at: now,
        }),
      );
      await trx('jobs').where('id', jobId).update({ failed_count: trx.raw('failed_count + ?', [failed]) });
      await within(trx);
      return true;
    });
  }

  /** In the finishing item's transaction: the last item to finish completes its job, so no crash can leave it running. */
  private async completeIfDone(trx: Knex.Transaction, jobId: string, now: number, expiresAt: number, events: ItemEvents): Promise<boolean> {
    const changed = Number(
      await trx('jobs').where({ id: jobId, status: 'scraping' }).andWhere(trx.raw('done_count + failed_count >= total'))
        .update({ status: 'completed', finished_at: now, expires_at: expiresAt }),
    );
    if (changed !== 1) return false;
    await events.completed(trx);
    return true;
  }
}
