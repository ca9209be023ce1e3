import type { Knex } from 'knex';
import type { ItemEvents, ItemRow, ItemSettled, ItemTransitions, JobRow, WithinWrite } from '../../jobs/job-store.js';
import { GroupCommit } from './group-commit.js';
import { HANDED_OUT, ItemBatchesSql, type AnsweredWrite, type CompleteWrite, type StartWrite, type Started } from './item-batches-sql.js';

const NOTHING: ItemSettled = { settled: false, jobCompleted: false };

/**
 * An item's way through its states, in SQL (jobs/job-store.ts states each contract). Every
 * change is conditional on the state it leaves, so a stale worker (its entry handed out again
 * after a crash) changes nothing.
 */
export class ItemTransitionsSql implements ItemTransitions {
  // An item's start, answer and end are the hot path of every batch: written many at once (group-commit.ts).
  private readonly starts: GroupCommit<StartWrite, Started>;
  private readonly answers: GroupCommit<AnsweredWrite, void>;
  private readonly completions: GroupCommit<CompleteWrite, ItemSettled>;

  constructor(private readonly knex: Knex) {
    const batches = new ItemBatchesSql(knex);
    this.starts = new GroupCommit((ws) => batches.start(ws));
    // The stored answers are the payload: a group of them stays under GROUP_MAX_BYTES.
    this.answers = new GroupCommit((ws) => batches.answered(ws), (w) => w.document.stored.length);
    this.completions = new GroupCommit((ws) => batches.complete(ws));
  }

  start(jobId: string, idx: number, dispatch: number, now: number): Promise<{ job: JobRow; item: ItemRow } | undefined> {
    return this.starts.submit({ jobId, idx, dispatch, now });
  }

  async answered(jobId: string, idx: number, document: { stored: Buffer; bytes: number }, cost: number, statusCode: number, now: number): Promise<void> {
    await this.answers.submit({ jobId, idx, document, cost, statusCode, now });
  }

  complete(jobId: string, idx: number, now: number, expiresAt: number, events: ItemEvents): Promise<ItemSettled> {
    return this.completions.submit({ jobId, idx, now, expiresAt, events });
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
