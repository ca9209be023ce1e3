import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { keyDigest } from '../../../src/jobs/crawl/url-key.js';
import type { Database } from '../../../src/store/database.js';
import { CrawlStoreSql } from '../../../src/store/jobs/crawl-store-sql.js';
import { JobRecordsSql } from '../../../src/store/jobs/job-records-sql.js';
import { testDatabases } from '../../helpers/databases.js';
import { useStoreDatabase } from '../../helpers/store-database.js';

for (const database of testDatabases()) {
  describe(`job records SQL (${database.name})`, function () {
    this.timeout(60_000);
    let db: Database;
    let apiKeyId: number;
    useStoreDatabase(database, {}, (opened) => ({ connections: [db], apiKeyId } = opened));

    async function crawl(expiresAt: number, status: string): Promise<string> {
      const id = randomUUID();
      const url = 'http://127.0.0.1/';
      const store = new CrawlStoreSql(db.knex);
      await new JobRecordsSql(db.knex).create(
        { id, kind: 'crawl', apiKeyId, engine: 'plain', url, options: {}, webhook: undefined, clientAddress: '127.0.0.1', maxConcurrency: undefined, maxRetries: 1, total: 1, createdAt: 0, expiresAt, idempotencyKey: undefined },
        [url], (trx) => store.seed(trx, id, '{}', { url, digest: keyDigest(url), depth: 0, foundOn: undefined }), 60_000,
      );
      await store.discover(id, [{ url: `${url}a`, digest: keyDigest(`${url}a`), depth: 1, foundOn: url }], [{ url: `${url}private`, digest: keyDigest(`${url}private`), depth: 1, foundOn: url }], 10, 0);
      await db.knex('jobs').where('id', id).update({ status });
      return id;
    }

    const rowsOf = async (id: string) => {
      const count = async (table: string, column: string) => Number(((await db.knex(table).count({ n: '*' }).where(column, id).first()) as { n: number | string }).n);
      return [await count('jobs', 'id'), await count('job_items', 'job_id'), await count('crawls', 'job_id'), await count('crawl_urls', 'job_id')];
    };

    it("prunes an expired job with its items and a crawl's rules and frontier, in one go; a running or unexpired job stays", async () => {
      const expired = await crawl(1_000, 'completed');
      const running = await crawl(1_000, 'scraping');
      const fresh = await crawl(10_000, 'completed');
      expect(await rowsOf(expired)).to.deep.equal([1, 2, 1, 3]);
      expect(await new JobRecordsSql(db.knex).prune(5_000, 100)).to.equal(1);
      expect(await rowsOf(expired), 'no crawl row outlives its job').to.deep.equal([0, 0, 0, 0]);
      expect(await rowsOf(running)).to.deep.equal([1, 2, 1, 3]);
      expect(await rowsOf(fresh)).to.deep.equal([1, 2, 1, 3]);
    });
  });
}
