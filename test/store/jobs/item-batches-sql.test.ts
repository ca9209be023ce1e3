import { expect } from 'chai';
import type { Knex } from 'knex';
import { newJobId } from '../../../src/jobs/job-id.js';
import type { ItemEvents } from '../../../src/jobs/job-store.js';
import type { Database } from '../../../src/store/database.js';
import { ItemBatchesSql } from '../../../src/store/jobs/item-batches-sql.js';
import { ItemTransitionsSql } from '../../../src/store/jobs/item-transitions-sql.js';
import { JobRecordsSql } from '../../../src/store/jobs/job-records-sql.js';
import { testDatabases } from '../../helpers/databases.js';
import { useStoreDatabase } from '../../helpers/store-database.js';

/** What a group's item events recorded, in the order they ran (each inside the write's transaction). */
class EventLog {
  readonly seen: string[] = [];

  of(name: string, failPage = false): ItemEvents {
    return {
      page: async (trx: Knex.Transaction) => {
        if (failPage) throw new Error(`the page event of ${name} failed`);
        await trx.raw('select 1');
        this.seen.push(`page ${name}`);
      },
      completed: async () => void this.seen.push(`completed ${name}`),
    };
  }
}

for (const database of testDatabases()) {
  describe(`item batches SQL (${database.name})`, function () {
    this.timeout(60_000);
    let db: Database;
    let apiKeyId: number;
    let records: JobRecordsSql;
    useStoreDatabase(database, { credits: 1_000 }, (opened) => {
      ({ connections: [db], apiKeyId } = opened);
      records = new JobRecordsSql(db.knex);
    });

    /** A batch of `n` items, each handed out once (dispatch 1), as the dispatcher leaves them. */
    async function handedOut(n: number): Promise<string> {
      const now = Date.now();
      const job = {
        id: newJobId(now), kind: 'batch_scrape' as const, apiKeyId, engine: 'plain' as const, url: undefined, options: {}, webhook: undefined, clientAddress: '127.0.0.1',
        maxConcurrency: undefined, maxRetries: 0, total: n, createdAt: now, expiresAt: now + 60_000, idempotencyKey: undefined,
      };
      const { id } = await records.create(job, Array.from({ length: n }, (_, i) => `http://127.0.0.1/${i}`), async () => {}, 60_000);
      await db.knex('job_items').where('job_id', id).update({ state: 'dispatched', dispatches: 1 });
      return id;
    }
    const items = async (jobId: string) =>
      ((await db.knex('job_items').select('idx', 'state', 'attempts', 'cost', 'status_code', 'done_seq', 'document').where('job_id', jobId).orderBy('idx')) as Array<{
        idx: number; state: string; attempts: number; cost: number | null; status_code: number | null; done_seq: number | null; document: Buffer | null;
      }>).map((r) => ({ idx: Number(r.idx), state: r.state, attempts: Number(r.attempts), cost: r.cost === null ? null : Number(r.cost), statusCode: r.status_code, doneSeq: r.done_seq === null ? null : Number(r.done_seq), document: r.document?.toString() ?? null }));
    const jobRow = async (jobId: string) => {
      const r = (await db.knex('jobs').select('status', 'done_count', 'credits_used').where('id', jobId).first()) as { status: string; done_count: number; credits_used: number | string };
      return { status: r.status, done: Number(r.done_count), credits: Number(r.credits_used) };
    };

    it('starts, stores and completes a group spanning two jobs, each item judged on its own state', async () => {
      const batches = new ItemBatchesSql(db.knex);
      const a = await handedOut(3);
      const b = await handedOut(1);
      const now = Date.now();
      // A stale dispatch (a lost entry handed out again) starts nothing; the others start, once each.
      const started = await batches.start([
        { jobId: a, idx: 0, dispatch: 1, now }, { jobId: b, idx: 0, dispatch: 1, now }, { jobId: a, idx: 1, dispatch: 1, now }, { jobId: a, idx: 2, dispatch: 0, now },
      ]);
      expect(started.map((s) => s && { job: s.job.id, idx: s.item.idx, state: s.item.state, attempts: s.item.attempts })).to.deep.equal([
        { job: a, idx: 0, state: 'running', attempts: 1 }, { job: b, idx: 0, state: 'running', attempts: 1 }, { job: a, idx: 1, state: 'running', attempts: 1 }, undefined,
      ]);
      expect(started[0]!.job.apiKeyId).to.equal(apiKeyId);
      expect((await items(a)).map((i) => i.state)).to.deep.equal(['running', 'running', 'dispatched']);

      const stored = (text: string) => ({ stored: Buffer.from(text), bytes: text.length });
      await batches.answered([
        { jobId: a, idx: 0, document: stored('a0'), cost: 1, statusCode: 200, now }, { jobId: b, idx: 0, document: stored('b0'), cost: 5, statusCode: 404, now },
        { jobId: a, idx: 1, document: stored('a1'), cost: 2, statusCode: 200, now }, { jobId: a, idx: 2, document: stored('never'), cost: 9, statusCode: 200, now },
      ]);
      expect((await items(a)).map(({ state, cost, statusCode, document }) => ({ state, cost, statusCode, document }))).to.deep.equal([
        { state: 'answered', cost: 1, statusCode: 200, document: 'a0' }, { state: 'answered', cost: 2, statusCode: 200, document: 'a1' }, { state: 'dispatched', cost: null, statusCode: null, document: null },
      ]);

      const log = new EventLog();
      const settled = await batches.complete([
        { jobId: a, idx: 1, now, expiresAt: now + 60_000, events: log.of('a1') }, { jobId: b, idx: 0, now, expiresAt: now + 60_000, events: log.of('b0') },
        { jobId: a, idx: 0, now, expiresAt: now + 60_000, events: log.of('a0') }, { jobId: a, idx: 1, now, expiresAt: now + 60_000, events: log.of('a1 again') },
      ]);
      // The same item twice in one group (a stale worker beside the live one) is settled once.
      expect(settled).to.deep.equal([{ settled: true, jobCompleted: false }, { settled: true, jobCompleted: true }, { settled: true, jobCompleted: false }, { settled: false, jobCompleted: false }]);
      // Numbered in the order the group settled them; b, its only item done, completed.
      expect((await items(a)).map(({ state, doneSeq }) => ({ state, doneSeq }))).to.deep.equal([{ state: 'done', doneSeq: 2 }, { state: 'done', doneSeq: 1 }, { state: 'dispatched', doneSeq: null }]);
      expect(await jobRow(a)).to.deep.equal({ status: 'scraping', done: 2, credits: 3 });
      expect(await jobRow(b)).to.deep.equal({ status: 'completed', done: 1, credits: 5 });
      expect(log.seen.sort()).to.deep.equal(['completed b0', 'page a0', 'page a1', 'page b0']);
      // Completed again (a stale worker): nothing changes.
      expect(await batches.complete([{ jobId: a, idx: 0, now, expiresAt: now + 60_000, events: log.of('late') }])).to.deep.equal([{ settled: false, jobCompleted: false }]);
      expect(await jobRow(a)).to.deep.equal({ status: 'scraping', done: 2, credits: 3 });
    });

    it('a group that fails is sent again item by item: the others settle, the failing one alone is refused and left as it was', async () => {
      const transitions = new ItemTransitionsSql(db.knex);
      const job = await handedOut(4);
      const now = Date.now();
      const begun = await Promise.all([0, 1, 2, 3].map((idx) => transitions.start(job, idx, 1, now)));
      expect(begun.every((s) => s?.item.state === 'running')).to.equal(true);
      await Promise.all([0, 1, 2, 3].map((idx) => transitions.answered(job, idx, { stored: Buffer.from(`d${idx}`), bytes: 2 }, 1, 200, now)));
      const log = new EventLog();
      // Submitted in one turn: one group, whose transaction the failing event of item 2 rolls back whole.
      const outcomes = await Promise.allSettled([0, 1, 2, 3].map((idx) => transitions.complete(job, idx, now, now + 60_000, log.of(`i${idx}`, idx === 2))));
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).to.deep.equal([
        { settled: true, jobCompleted: false }, { settled: true, jobCompleted: false }, 'the page event of i2 failed', { settled: true, jobCompleted: false },
      ]);
      // The group ran once (its events up to the failing one, rolled back), then each alone.
      expect(log.seen).to.deep.equal(['page i0', 'page i1', 'page i0', 'page i1', 'page i3']);
      expect((await items(job)).map(({ state, doneSeq }) => ({ state, doneSeq }))).to.deep.equal([
        { state: 'done', doneSeq: 1 }, { state: 'done', doneSeq: 2 }, { state: 'answered', doneSeq: null }, { state: 'done', doneSeq: 3 },
      ]);
      expect(await jobRow(job)).to.deep.equal({ status: 'scraping', done: 3, credits: 3 });
      // The item left answered completes on its next try, and with it the job.
      expect(await transitions.complete(job, 2, now, now + 60_000, log.of('i2 again'))).to.deep.equal({ settled: true, jobCompleted: true });
      expect(await jobRow(job)).to.deep.equal({ status: 'completed', done: 4, credits: 4 });
    });
  });
}
