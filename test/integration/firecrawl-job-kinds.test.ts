import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { ServerProcess } from '../helpers/server-process.js';

const sqlite = testDatabases().find((d) => d.name === 'sqlite')!;

/**
 * A batch and a crawl are jobs of one table, told apart by their kind: through the real server, a
 * batch's id is unknown on the crawl paths and a crawl's on the batch paths (a 404, as an id never
 * made), and an `x-idempotency-key` is scoped by kind. The engine's own test proves the same on
 * both databases (test/integration/job-engine.test.ts); this one proves the edge asks by kind.
 */
describe('Firecrawl jobs by kind (sqlite)', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let store: TestStore;
  let site: http.Server;
  let siteUrl: string;

  before(async () => {
    // Slow pages: both jobs are still running when they are asked for through the other kind.
    site = http.createServer((_req, res) => void setTimeout(() => res.end('<html><body>slow</body></html>'), 2_000));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const databaseUrl = sqlite.freshUrl();
    store = await TestStore.open(databaseUrl);
    server = await new ServerProcess({ DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.1/32', BROWSER_POOL_SIZE: '0' }).start();
  });
  after(async () => {
    await server?.stop();
    await store?.close();
    site?.closeAllConnections();
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  });

  const api = (key: string, path: string, init: { method?: string; body?: unknown; idempotency?: string } = {}) =>
    fetch(`${server.base}${path}`, {
      method: init.method ?? 'GET',
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...(init.idempotency ? { 'x-idempotency-key': init.idempotency } : {}) },
    });
  const submitBatch = async (key: string, idempotency?: string) => {
    const res = await api(key, '/v2/batch/scrape', { method: 'POST', body: { urls: [`${siteUrl}/b`] }, idempotency });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { id: string }).id;
  };
  const submitCrawl = async (key: string, idempotency?: string) => {
    const res = await api(key, '/v2/crawl', { method: 'POST', body: { url: `${siteUrl}/c`, limit: 1, sitemap: 'skip' }, idempotency });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { id: string }).id;
  };

  it("a batch's id is a 404 on the crawl paths, a crawl's on the batch paths; each still answers on its own", async () => {
    const key = await store.key({ credits: 100 });
    const batch = await submitBatch(key);
    const crawl = await submitCrawl(key);
    for (const [path, method] of [[`/v2/crawl/${batch}`, 'GET'], [`/v2/crawl/${batch}/errors`, 'GET'], [`/v2/crawl/${batch}`, 'DELETE'],
      [`/v2/batch/scrape/${crawl}`, 'GET'], [`/v2/batch/scrape/${crawl}/errors`, 'GET'], [`/v2/batch/scrape/${crawl}`, 'DELETE']] as const) {
      const res = await api(key, path, { method });
      expect(res.status, `${method} ${path}`).to.equal(404);
      await res.body?.cancel();
    }
    const active = (await (await api(key, '/v2/crawl/active')).json()) as { crawls: Array<{ id: string }> };
    expect(active.crawls.map((c) => c.id)).to.deep.equal([crawl]);
    // Refused through the other kind, neither was cancelled: each is still scraping.
    expect(((await (await api(key, `/v2/batch/scrape/${batch}`)).json()) as { status: string }).status).to.equal('scraping');
    expect(((await (await api(key, `/v2/crawl/${crawl}`)).json()) as { status: string }).status).to.equal('scraping');
    expect((await api(key, `/v2/batch/scrape/${batch}`, { method: 'DELETE' })).status).to.equal(200);
    expect((await api(key, `/v2/crawl/${crawl}`, { method: 'DELETE' })).status).to.equal(200);
  });

  it('the same x-idempotency-key makes a batch and a crawl; each answers its own again', async () => {
    const key = await store.key({ credits: 100 });
    const batch = await submitBatch(key, 'one-key');
    const crawl = await submitCrawl(key, 'one-key');
    expect(crawl).to.not.equal(batch);
    expect(await submitBatch(key, 'one-key')).to.equal(batch);
    expect(await submitCrawl(key, 'one-key')).to.equal(crawl);
    expect((await api(key, `/v2/crawl/${crawl}`)).status).to.equal(200);
    expect((await api(key, `/v2/batch/scrape/${batch}`)).status).to.equal(200);
  });
});
