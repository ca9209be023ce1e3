import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { FoundUrl } from '../../../src/jobs/crawl/crawl-store.js';
import { keyDigest } from '../../../src/jobs/crawl/url-key.js';
import type { Database } from '../../../src/store/database.js';
import { CrawlStoreSql } from '../../../src/store/jobs/crawl-store-sql.js';
import { JobRecordsSql } from '../../../src/store/jobs/job-records-sql.js';
import { testDatabases } from '../../helpers/databases.js';
import { useStoreDatabase } from '../../helpers/store-database.js';

const found = (url: string, depth = 1, foundOn: string | undefined = 'http://127.0.0.1/'): FoundUrl => ({ url, digest: keyDigest(url), depth, foundOn });

for (const database of testDatabases()) {
  describe(`crawl store SQL (${database.name})`, function () {
    this.timeout(60_000);
    let a: Database;
    let b: Database;
    let apiKeyId: number;
    useStoreDatabase(database, { connections: 2 }, (opened) => ({ connections: [a, b], apiKeyId } = opened));

    /** A crawl job as the edge creates it: the job, its start item, and (in the same transaction) its rules and frontier. */
    async function crawl(rules = '{"limit":10}'): Promise<string> {
      const id = randomUUID();
      const now = Date.now();
      const start = found('http://127.0.0.1/', 0, undefined);
      await new JobRecordsSql(a.knex).create(
        { id, kind: 'crawl', apiKeyId, engine: 'plain', url: start.url, options: {}, webhook: undefined, clientAddress: '127.0.0.1', maxConcurrency: undefined, maxRetries: 1, total: 1, createdAt: now, expiresAt: now + 60_000, idempotencyKey: undefined },
        [start.url], (trx) => new CrawlStoreSql(a.knex).seed(trx, id, rules, start), 60_000,
      );
      return id;
    }

    const requestOf = async (jobId: string, idx: number) => ((await a.knex('job_items').select('request_id').where({ job_id: jobId, idx }).first()) as { request_id: string }).request_id;

    it("seeds a crawl's rules and start page, and finds a page by its item's request id (a batch's item is none)", async () => {
      const store = new CrawlStoreSql(a.knex);
      const id = await crawl('{"limit":3}');
      const page = await store.pageOf(await requestOf(id, 0));
      expect(page).to.deep.equal({ jobId: id, idx: 0, url: 'http://127.0.0.1/', depth: 0, foundOn: undefined, rules: '{"limit":3}', status: 'scraping' });
      expect(await store.pageOf(randomUUID())).to.equal(undefined);
    });

    it('makes new URLs items numbered after the last, up to the limit; keeps robots-refused ones apart; a repeat adds nothing', async () => {
      const store = new CrawlStoreSql(a.knex);
      const id = await crawl();
      const urls = ['a', 'b', 'c', 'd'].map((p) => found(`http://127.0.0.1/${p}`));
      const blocked = [found('http://127.0.0.1/private/x')];
      expect(await store.discover(id, [urls[0], urls[1], urls[0], found('http://127.0.0.1/')], blocked, 3, Date.now())).to.equal(2);
      expect(await store.discover(id, urls, blocked, 3, Date.now()), 'the limit counts the start page').to.equal(0);
      const items = (await a.knex('job_items').select('idx', 'url', 'state').where('job_id', id).orderBy('idx')) as Array<{ idx: number; url: string; state: string }>;
      expect(items.map((i) => [Number(i.idx), i.url, i.state])).to.deep.equal([[0, 'http://127.0.0.1/', 'queued'], [1, 'http://127.0.0.1/a', 'queued'], [2, 'http://127.0.0.1/b', 'queued']]);
      expect(Number(((await a.knex('jobs').select('total').where('id', id).first()) as { total: number }).total)).to.equal(3);
      expect(await store.robotsBlocked(id, 10)).to.deep.equal(['http://127.0.0.1/private/x']);
      const page = await store.pageOf(await requestOf(id, 2));
      expect(page).to.include({ idx: 2, depth: 1, foundOn: 'http://127.0.0.1/' });
    });

    it('numbers discoveries made at once (two instances on MySQL) without a gap or a repeat, and adds nothing to a crawl no longer scraping', async () => {
      const id = await crawl('{"limit":100}');
      // SQLite serves one instance (its single connection orders the transactions); MySQL several, locking the job's row.
      const [x, y] = [new CrawlStoreSql(a.knex), new CrawlStoreSql(database.name === 'mysql' ? b.knex : a.knex)];
      const batch = (from: number) => Array.from({ length: 30 }, (_, i) => found(`http://127.0.0.1/p/${from + i}`));
      const added = await Promise.all([x.discover(id, batch(0), [], 100, Date.now()), y.discover(id, batch(15), [], 100, Date.now())]);
      expect(added[0] + added[1]).to.equal(45);
      const idx = ((await a.knex('job_items').select('idx').where('job_id', id).orderBy('idx')) as Array<{ idx: number }>).map((r) => Number(r.idx));
      expect(idx).to.deep.equal(Array.from({ length: 46 }, (_, i) => i));
      await a.knex('jobs').where('id', id).update({ status: 'cancelled' });
      expect(await x.discover(id, [found('http://127.0.0.1/late')], [], 100, Date.now())).to.equal(0);
    });

    it("claims a redirect's target for the page that redirected (again on its retry), not for another way it was met", async () => {
      const store = new CrawlStoreSql(a.knex);
      const id = await crawl();
      await store.discover(id, [found('http://127.0.0.1/linked')], [], 10, Date.now());
      const target = found('http://127.0.0.1/target', 1, 'http://127.0.0.1/go');
      expect(await store.claim(id, target, Date.now())).to.equal(true);
      expect(await store.claim(id, target, Date.now()), 'the same page, run again').to.equal(true);
      expect(await store.claim(id, { ...target, foundOn: 'http://127.0.0.1/other' }, Date.now())).to.equal(false);
      expect(await store.claim(id, found('http://127.0.0.1/linked', 1, 'http://127.0.0.1/go'), Date.now()), 'already an item').to.equal(false);
      expect(await store.discover(id, [found('http://127.0.0.1/target')], [], 10, Date.now()), 'no link to a claimed target becomes an item').to.equal(0);
    });
  });
}
