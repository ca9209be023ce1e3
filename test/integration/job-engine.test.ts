import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JobNotFoundError } from '../../src/jobs/job-errors.js';
import type { JobPage } from '../../src/jobs/job-ports.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { callerOf, jobInstance, type JobInstance } from '../helpers/job-harness.js';
import { TestStore } from '../helpers/keys.js';
import { booksBalance, ledgerRows } from '../helpers/ledger-checks.js';
import { TestRedis } from '../helpers/test-redis.js';

/** A loopback target: /ok, /missing (404), /broken (always 500), /flaky (500 on its first hit per path), /slow (300 ms). */
async function target(): Promise<{ url: (path: string) => string; hits: Map<string, number>; close: () => Promise<void> }> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    if (path.startsWith('/ok')) return void res.end(`ok ${path}`);
    if (path.startsWith('/missing')) return void res.writeHead(404).end('missing');
    if (path.startsWith('/broken')) return void res.writeHead(500).end('broken');
    if (path.startsWith('/flaky')) return void (n === 1 ? res.writeHead(503).end('later') : res.end('recovered'));
    if (path.startsWith('/slow')) return void setTimeout(() => res.end('slow'), 300);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const finished = (page: JobPage) => page.status !== 'scraping';

for (const database of testDatabases()) {
  describe(`job engine (${database.name})`, function () {
    this.timeout(300_000);
    let store: TestStore;
    let drop: () => Promise<void>;
    let url: string;
    let t: Awaited<ReturnType<typeof target>>;
    let instance: JobInstance;

    before(async () => {
      const isolated = await database.isolated();
      url = isolated.url;
      drop = isolated.drop;
      store = await TestStore.open(url);
      t = await target();
      instance = await jobInstance(store, {});
    });
    after(async () => {
      await instance?.stop();
      await t?.close();
      await store?.close();
      await drop?.();
    });

    const all = async (key: string, id: string) => {
      const docs = [];
      let skip = 0;
      for (;;) {
        const page = await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip, limit: undefined });
        docs.push(...page.documents);
        if (page.nextSkip === undefined) return { page, docs };
        skip = page.nextSkip;
      }
    };

    it('runs a batch of mixed outcomes: every URL once, in data or errors, charged once each, the books balanced, its events recorded', async () => {
      const key = await store.key({ credits: 10_000 });
      const urls = [
        ...Array.from({ length: 40 }, (_, i) => t.url(`/ok/${i}`)), ...Array.from({ length: 5 }, (_, i) => t.url(`/missing/${i}`)),
        ...Array.from({ length: 5 }, (_, i) => t.url(`/flaky/${i}`)), ...Array.from({ length: 3 }, (_, i) => t.url(`/broken/${i}`)),
        'http://127.0.0.1:9/unreachable', ...Array.from({ length: 3 }, (_, i) => t.url(`/slow/${i}`)),
      ];
      const webhook = { url: 'http://receiver.test/hook', headers: {}, metadata: { run: '1' }, events: ['started', 'page', 'completed', 'failed'] as const };
      const { id } = await instance.parts.jobs.submitBatch({ caller: callerOf(key), urls, options: {}, webhook: { ...webhook, events: [...webhook.events] } });
      await eventually(async () => finished(await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 0, limit: 1 })), 120_000, 'the batch to finish');
      const { page, docs } = await all(key, id);
      const { errors } = await instance.parts.jobs.errors(callerOf(key), 'batch_scrape', id);
      expect(page.status).to.equal('completed');
      expect(page.total).to.equal(urls.length);
      const seen = [...docs.map((d) => d.metadata.sourceURL), ...errors.map((e) => e.url)].sort();
      expect(seen).to.deep.equal([...urls].sort());
      expect(errors.map((e) => e.url)).to.deep.equal(['http://127.0.0.1:9/unreachable']);
      expect(errors[0].code).to.equal('TARGET_UNREACHABLE');
      // A 5xx is retried; its last attempt's page is the answer (Firecrawl's clients see its status).
      expect(docs.filter((d) => d.metadata.sourceURL.includes('/broken/')).map((d) => d.metadata.statusCode)).to.deep.equal([500, 500, 500]);
      expect(docs.filter((d) => d.metadata.sourceURL.includes('/flaky/')).every((d) => d.metadata.statusCode === 200)).to.equal(true);
      expect(t.hits.get('/broken/0')).to.equal(3);
      expect(page.creditsUsed).to.equal(docs.length);
      expect(await store.remaining(key)).to.equal(10_000 - docs.length);
      const charged = (await ledgerRows(store)).filter((r) => r.outcome === 'charged');
      expect(charged.length).to.equal(docs.length);
      expect(new Set(docs.map((d) => d.metadata.scrapeId)).size).to.equal(docs.length);
      expect(await booksBalance(url)).to.equal(true);
      const events = instance.outbox.events.filter((e) => e.jobId === id);
      expect(events.filter((e) => e.type === 'started')).to.have.length(1);
      expect(events.filter((e) => e.type === 'page')).to.have.length(docs.length);
      expect(events.filter((e) => e.type === 'completed')).to.have.length(1);
    });

    it('pages by skip and limit, with the next page while more finished documents exist', async () => {
      const key = await store.key();
      const { id } = await instance.parts.jobs.submitBatch({ caller: callerOf(key), urls: Array.from({ length: 12 }, (_, i) => t.url(`/ok/page-${i}`)), options: {} });
      await eventually(async () => finished(await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 0, limit: 1 })), 60_000, 'the batch');
      const first = await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 0, limit: 5 });
      expect(first.documents).to.have.length(5);
      expect(first.nextSkip).to.equal(5);
      const last = await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 10, limit: 5 });
      expect(last.documents).to.have.length(2);
      expect(last.nextSkip).to.equal(undefined);
      const beyond = await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 500, limit: 5 });
      expect(beyond.documents).to.have.length(0);
    });

    it("never shows a job to another key, and an unknown id is not found alike", async () => {
      const owner = await store.key();
      const other = await store.key();
      const { id } = await instance.parts.jobs.submitBatch({ caller: callerOf(owner), urls: [t.url('/ok/mine')], options: {} });
      const refused = (work: Promise<unknown>) => work.then(() => undefined, (err: unknown) => err);
      expect(await refused(instance.parts.jobs.page(callerOf(other), 'batch_scrape', id, { skip: 0, limit: 1 }))).to.be.instanceOf(JobNotFoundError);
      expect(await refused(instance.parts.jobs.errors(callerOf(other), 'batch_scrape', id))).to.be.instanceOf(JobNotFoundError);
      expect(await refused(instance.parts.jobs.cancel(callerOf(other), 'batch_scrape', id))).to.be.instanceOf(JobNotFoundError);
      expect(await refused(instance.parts.jobs.page(callerOf(owner), 'batch_scrape', 'not-a-job', { skip: 0, limit: 1 }))).to.be.instanceOf(JobNotFoundError);
    });

    it('answers the same job for the same idempotency key', async () => {
      const key = await store.key();
      const submit = () => instance.parts.jobs.submitBatch({ caller: callerOf(key), urls: [t.url('/ok/idem')], options: {}, idempotencyKey: 'abc' });
      const [a, b] = await Promise.all([submit(), submit()]);
      expect(a.id).to.equal(b.id);
      expect((await submit()).id).to.equal(a.id);
    });

    it("answers a batch's id through the crawl kind, and a crawl's through the batch kind, as an unknown id", async () => {
      const key = await store.key();
      const caller = callerOf(key);
      const batch = await instance.parts.jobs.submitBatch({ caller, urls: [t.url('/slow/kind-batch')], options: {} });
      const crawl = await instance.parts.jobs.submitCrawl({ caller, url: t.url('/slow/kind-crawl'), options: {}, seed: async () => {} });
      const refused = (work: Promise<unknown>) => work.then(() => undefined, (err: unknown) => err);
      for (const [kind, id] of [['crawl', batch.id], ['batch_scrape', crawl.id]] as const) {
        expect(await refused(instance.parts.jobs.page(caller, kind, id, { skip: 0, limit: 1 })), `page ${kind}`).to.be.instanceOf(JobNotFoundError);
        expect(await refused(instance.parts.jobs.errors(caller, kind, id)), `errors ${kind}`).to.be.instanceOf(JobNotFoundError);
        expect(await refused(instance.parts.jobs.cancel(caller, kind, id)), `cancel ${kind}`).to.be.instanceOf(JobNotFoundError);
      }
      // Refused through the other kind, each is still running and readable through its own.
      expect((await instance.parts.jobs.page(caller, 'batch_scrape', batch.id, { skip: 0, limit: 1 })).kind).to.equal('batch_scrape');
      expect((await instance.parts.jobs.page(caller, 'crawl', crawl.id, { skip: 0, limit: 1 })).kind).to.equal('crawl');
      expect((await instance.parts.jobs.active(caller, 'crawl')).map((j) => j.id)).to.not.include(batch.id);
      expect((await instance.parts.jobs.active(caller, 'batch_scrape')).map((j) => j.id)).to.not.include(crawl.id);
    });

    it('scopes an idempotency key by kind: the same value makes a batch and a crawl', async () => {
      const key = await store.key();
      const caller = callerOf(key);
      const batch = () => instance.parts.jobs.submitBatch({ caller, urls: [t.url('/ok/idem-kind')], options: {}, idempotencyKey: 'same' });
      const crawl = () => instance.parts.jobs.submitCrawl({ caller, url: t.url('/ok/idem-kind-crawl'), options: {}, idempotencyKey: 'same', seed: async () => {} });
      const [b, c] = await Promise.all([batch(), crawl()]);
      expect(b.id).to.not.equal(c.id);
      expect((await batch()).id).to.equal(b.id);
      expect((await crawl()).id).to.equal(c.id);
      expect((await instance.parts.jobs.page(caller, 'batch_scrape', b.id, { skip: 0, limit: 1 })).kind).to.equal('batch_scrape');
      expect((await instance.parts.jobs.page(caller, 'crawl', c.id, { skip: 0, limit: 1 })).kind).to.equal('crawl');
    });

    it('cancels: items not started are dropped uncharged, running ones finish charged', async () => {
      const key = await store.key({ credits: 1_000, maxConcurrency: 1 });
      const urls = Array.from({ length: 30 }, (_, i) => t.url(`/slow/cancel-${i}`));
      const { id } = await instance.parts.jobs.submitBatch({ caller: callerOf(key), urls, options: {} });
      await eventually(async () => (await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 0, limit: 1 })).completed >= 1, 60_000, 'one item done');
      await instance.parts.jobs.cancel(callerOf(key), 'batch_scrape', id);
      // Settled: charged or refunded, and recorded as done or back in the queue.
      const handedOut = async () => Number((await store.db.knex('job_items').where({ job_id: id }).whereIn('state', ['dispatched', 'running', 'answered']).count({ n: '*' }).first())?.n ?? 0);
      const settledRows = async () => (await ledgerRows(store)).filter((r) => r.outcome === 'reserved').length === 0 && (await handedOut()) === 0;
      await eventually(settledRows, 60_000, 'the running item to settle');
      const page = await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 0, limit: 100 });
      expect(page.status).to.equal('cancelled');
      expect(page.completed).to.be.below(urls.length);
      expect(await store.remaining(key)).to.equal(1_000 - page.completed);
    });

    it("serves keys round-robin: a second key's 10 URLs finish while the first key's 5,000 are far from done", async () => {
      const big = await store.key({ credits: 100_000 });
      const small = await store.key();
      const { id: bigId } = await instance.parts.jobs.submitBatch({ caller: callerOf(big), urls: Array.from({ length: 5_000 }, (_, i) => t.url(`/ok/big-${i}`)), options: {} });
      await eventually(async () => (await instance.parts.jobs.page(callerOf(big), 'batch_scrape', bigId, { skip: 0, limit: 1 })).completed >= 50, 90_000, 'the big batch under way');
      const before = (await instance.parts.jobs.page(callerOf(big), 'batch_scrape', bigId, { skip: 0, limit: 1 })).completed;
      const { id } = await instance.parts.jobs.submitBatch({ caller: callerOf(small), urls: Array.from({ length: 10 }, (_, i) => t.url(`/ok/small-${i}`)), options: {} });
      await eventually(async () => finished(await instance.parts.jobs.page(callerOf(small), 'batch_scrape', id, { skip: 0, limit: 1 })), 90_000, 'the small batch');
      const during = (await instance.parts.jobs.page(callerOf(big), 'batch_scrape', bigId, { skip: 0, limit: 1 })).completed - before;
      // The bound: what was already waiting (the queue's cap, 2 × 16 workers) and the other key's turns beside the 10.
      expect(during, 'items of the big batch done while the small one ran').to.be.at.most(2 * 32 + 2 * 10);
      await instance.parts.jobs.cancel(callerOf(big), 'batch_scrape', bigId);
    });
  });
}

describe('job engine: Redis killed and restarted mid-batch', function () {
  this.timeout(300_000);
  it('loses no accepted job: items in flight run again, charged once', async () => {
    const database = testDatabases()[0];
    const isolated = await database.isolated();
    const store = await TestStore.open(isolated.url);
    const t = await target();
    const redis = await TestRedis.start();
    const instance = await jobInstance(store, {}, redis.url);
    try {
      const key = await store.key({ credits: 10_000 });
      const urls = Array.from({ length: 300 }, (_, i) => t.url(i % 10 === 0 ? `/slow/r-${i}` : `/ok/r-${i}`));
      const { id } = await instance.parts.jobs.submitBatch({ caller: callerOf(key), urls, options: {} });
      await eventually(async () => (await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 0, limit: 1 })).completed >= 20, 60_000, 'the batch under way');
      // Redis holds the entries handed out, never the queued items: at most 1 KiB each, and a
      // few KiB of the queues' own keys (their event streams are capped at 100).
      const load = await redis.queueLoad();
      expect(load.entries, 'entries held').to.be.within(1, 64);
      expect(load.bytes, `${load.bytes} bytes for ${load.entries} entries`).to.be.below(1024 * load.entries + 32 * 1024);
      await redis.kill();
      await redis.restart();
      await eventually(async () => finished(await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 0, limit: 1 })), 90_000, 'the batch to finish after the restart');
      const page = await instance.parts.jobs.page(callerOf(key), 'batch_scrape', id, { skip: 0, limit: 1 });
      expect(page.status).to.equal('completed');
      expect(page.completed).to.equal(urls.length);
      expect(await store.remaining(key)).to.equal(10_000 - urls.length);
      expect(await booksBalance(isolated.url)).to.equal(true);
    } finally {
      await instance.stop();
      await redis.kill();
      await t.close();
      await store.close();
      await isolated.drop();
    }
  });
});
