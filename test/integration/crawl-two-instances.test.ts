import { expect } from 'chai';
import { urlKey } from '../../src/jobs/crawl/url-key.js';
import type { JobDocument } from '../../src/jobs/job-ports.js';
import { CrawlSite } from '../helpers/crawl-site.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { TestStore } from '../helpers/keys.js';
import { booksBalance, ledgerRows } from '../helpers/ledger-checks.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TestRedis } from '../helpers/test-redis.js';

const mysql = testDatabases().find((d) => d.name === 'mysql');

/**
 * Two instances on one Redis and one MySQL crawl one site together: the host's cap holds over
 * both (the gate is in Redis). One is SIGKILLed mid-crawl; the survivor finishes it, every page
 * in the results once, each charged once, the books balanced.
 */
(mysql ? describe : describe.skip)('crawl: two instances on one Redis, one SIGKILLed mid-crawl (mysql)', function () {
  this.timeout(240_000);
  let own: { url: string; drop: () => Promise<void> };
  let store: TestStore;
  let redis: TestRedis;
  let site: CrawlSite;
  const servers: ServerProcess[] = [];

  before(async () => {
    own = await mysql!.isolated();
    store = await TestStore.open(own.url);
    redis = await TestRedis.start();
    site = new CrawlSite({ pages: 2_000, fanout: 10, pageMs: 30 });
  });
  after(async () => {
    for (const server of servers) await server.kill();
    await redis?.kill();
    await site?.stop();
    await store?.close();
    await own?.drop();
  });

  it('completes on the survivor, every page once and charged once, the host cap held over both', async () => {
    const env = {
      DATABASE_URL: own.url, REDIS_URL: redis.url, ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.1/32,127.0.0.2/32', BROWSER_POOL_SIZE: '0',
      JOB_STALLED_SECONDS: '2', JOB_WORKERS: '8', JOB_RETRY_BASE_SECONDS: '0.05',
    };
    const [a, b] = await Promise.all([new ServerProcess(env).start(), new ServerProcess(env).start()]);
    servers.push(a, b);
    await site.start(Number(new URL(a.base).port));
    const key = await store.key({ credits: 100_000 });
    const res = await fetch(`${a.base}/v2/crawl`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ url: site.url('/p/0'), limit: 300, sitemap: 'skip', crawlEntireDomain: true, scrapeOptions: { formats: ['rawHtml'], timeout: 5_000 } }),
    });
    const { id } = (await res.json()) as { id: string };
    const status = async (server: ServerProcess, path = `/v2/crawl/${id}?limit=1`) =>
      (await (await fetch(`${server.base}${path}`, { headers: { 'x-api-key': key } })).json()) as { status: string; completed: number; creditsUsed: number; next?: string; data: JobDocument[] };
    const byInstance = async () => (await store.db.knex('request_ledger').select('instance_id').count({ n: '*' }).groupBy('instance_id')) as Array<{ instance_id: string }>;
    await eventually(async () => (await byInstance()).length >= 2 && (await status(b)).completed >= 40, 60_000, 'both instances at work');
    await a.kill();
    await eventually(async () => (await status(b)).status === 'completed', 180_000, 'the survivor to finish the crawl');
    const docs: JobDocument[] = [];
    for (let next: string | undefined = `${b.base}/v2/crawl/${id}`; next; ) {
      const page = await status(b, next.slice(b.base.length));
      docs.push(...page.data);
      next = page.next;
    }
    const errors = (await (await fetch(`${b.base}/v2/crawl/${id}/errors`, { headers: { 'x-api-key': key } })).json()) as { errors: Array<{ url: string }> };
    expect(docs.length + errors.errors.length).to.equal(300);
    expect(new Set(docs.map((d) => urlKey(d.metadata.sourceURL, { ignoreQuery: false, similar: true }))).size).to.equal(docs.length);
    const charged = (await ledgerRows(store)).filter((r) => r.outcome === 'charged');
    expect(charged.length).to.equal(docs.length);
    expect(new Set(charged.map((r) => r.request_id)).size).to.equal(docs.length);
    const done = await status(b);
    expect(100_000 - (await store.remaining(key))).to.equal(done.creditsUsed);
    expect(await booksBalance(own.url)).to.equal(true);
    expect(site.maxInFlight).to.be.at.most(2);
  });
});
